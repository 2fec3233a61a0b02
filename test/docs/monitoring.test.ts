/**
 * deploy/monitoring: every metric the alert rules and the Grafana dashboard query is one Till
 * serves (a name in src/metrics/), so a rename cannot leave them reading nothing. promtool checks
 * the rules' syntax in CI (scripts/containers.sh).
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { ROOT } from '../helpers/process.js'

const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8')
const served = new Set(readdirSync(path.join(ROOT, 'src/metrics')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .flatMap((f) => [...read(`src/metrics/${f}`).matchAll(/name: '(till_\w+)'/g)].map((m) => m[1])))
/** A histogram's series (_bucket, _count, _sum) belong to its family. */
const family = (n: string) => (served.has(n) ? n : n.replace(/_(bucket|count|sum)$/, ''))
const queried = (text: string) => [...new Set([...text.matchAll(/\btill_\w+/g)].map((m) => m[0]))]

test('the alert rules and the dashboard query only metrics Till serves', () => {
  assert.ok(served.size >= 15, [...served].join(', '))
  const dashboard = JSON.parse(read('deploy/monitoring/grafana/dashboards/till.json')) as { panels: { targets: { expr: string }[] }[] }
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n')
  for (const [what, text] of [['alerts.yml', read('deploy/monitoring/alerts.yml')], ['till.json', exprs]]) {
    const names = queried(text)
    assert.ok(names.length > 3, what)
    assert.deepEqual(names.filter((n) => !served.has(family(n))), [], `${what} queries metrics Till does not serve`)
  }
  for (const alert of ['TillDatabaseUnavailable', 'TillWebhookOutboxLagging', 'TillProviderErrors', 'TillWebhookEndpointsFailing', 'TillReconciliationLate']) {
    assert.match(read('deploy/monitoring/alerts.yml'), new RegExp(`alert: ${alert}\\n`))
  }
})
