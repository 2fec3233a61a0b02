/**
 * What scripts/containers.sh checks of the monitoring profile's Prometheus (PROMETHEUS_URL), through
 * its HTTP API: both Till instances (TILL_URLS) scraped with the metrics token (`up` 1, a
 * `till_build_info` each), Till's alert rules loaded, and every query of the Grafana dashboard
 * accepted by Prometheus and answered, the stat panels with a value: Grafana itself is not in
 * Debian, so its queries are proven here against the metrics Till serves. Exits non-zero, saying
 * what failed, at the first thing wrong.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'

const prometheus = process.env.PROMETHEUS_URL!
const instances = process.env.TILL_URLS!.split(' ').map((u) => new URL(u).host).sort()
const DEADLINE_MS = 60_000

interface Sample { metric: Record<string, string>; value: [number, string] }

async function get<T>(path: string): Promise<T> {
  const res = await fetch(prometheus + path)
  const body = (await res.json()) as { status: string; data: T; error?: string }
  assert.equal(body.status, 'success', `${path}: ${res.status} ${body.error ?? ''}`)
  return body.data
}
const query = async (expr: string) => (await get<{ resultType: string; result: Sample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result

/** Polls Prometheus until `expr` gives one sample for each instance (a scrape every 2 s in CI), or fails at the deadline. */
async function eachInstance(expr: string): Promise<Sample[]> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const got = await query(expr).catch(() => [] as Sample[])
    if (got.map((s) => s.metric.instance).sort().join() === instances.join()) return got
    assert.ok(Date.now() < deadline, `${expr} for ${instances.join(', ')} within ${DEADLINE_MS} ms; last: ${JSON.stringify(got)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

for (const s of await eachInstance('up{job="till"} == 1')) console.log(`prometheus scrapes ${s.metric.instance}`)
for (const s of await eachInstance('till_build_info')) {
  assert.equal(s.value[1], '1')
  assert.match(s.metric.version, /^\d+\.\d+\.\d+/)
  console.log(`till_build_info on ${s.metric.instance}: version ${s.metric.version}, node ${s.metric.node}`)
}

const rules = await get<{ groups: { rules: { name: string; health: string }[] }[] }>('/api/v1/rules?type=alert')
const alerts = rules.groups.flatMap((g) => g.rules)
assert.ok(alerts.length >= 5 && alerts.every((r) => r.health !== 'err'), JSON.stringify(alerts))
console.log(`alert rules loaded: ${alerts.map((r) => r.name).join(', ')}`)

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/monitoring/grafana/dashboards/till.json', import.meta.url), 'utf8')) as
  { panels: { title: string; type: string; datasource?: { uid?: string }; targets: { expr: string; datasource?: { uid?: string } }[] }[] }
for (const panel of dashboard.panels) {
  for (const target of panel.targets) {
    const result = await query(target.expr)
    if (panel.type === 'stat') assert.ok(result.length > 0, `the stat panel "${panel.title}" (${target.expr}) has no value`)
  }
}
console.log(`the dashboard's ${dashboard.panels.length} panels: every query accepted by Prometheus, every stat panel answered`)
