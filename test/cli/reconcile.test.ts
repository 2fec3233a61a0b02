/** `till reconcile` against a real Till over HTTP: a day run now, what it prints, and its usage errors. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { envFor, till } from '../helpers/cli.js'
import { lineOf, reconTill, unknownLine } from '../helpers/reconciliation.js'

const DAY = '2026-05-20'

test('till reconcile --date --config runs the day and prints what it found; --json prints the reports', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: `${DAY}T02:00:00Z` })
  const b = await r.payment({ paidAt: `${DAY}T03:00:00Z` })
  r.stub.set(DAY, { lines: [lineOf(a), lineOf(b, { amount: 1 }), unknownLine()] })
  r.stub.notReady('2026-05-19', 'statement not published yet')
  r.ta.clock.set(new Date('2026-05-21T02:30:00.000Z'))
  const env = envFor(r.ta)

  const text = await till(['reconcile', '--date', DAY, '--config', r.configId], { env })
  assert.equal(text.code, 0, text.stderr)
  assert.equal(text.stdout, `wechat ${r.configId} ${DAY}: reconciled, 1 matched, 0 expected, 1 missing_in_till, 1 amount_differs (2 not acknowledged)\n`)
  const report = (await r.ta.admin('GET', `/reconciliation/reports?provider_config_id=${r.configId}`)).body.data[0]
  assert.equal(report.state, 'reconciled')

  const json = await till(['reconcile', '--date', DAY, '--json'], { env })
  assert.equal(json.code, 0, json.stderr)
  assert.deepEqual(JSON.parse(json.stdout).data.map((x: any) => [x.id, x.counts.missing_in_till]), [[report.id, 1]])

  const waiting = await till(['reconcile', '--date', '2026-05-19', '--config', r.configId], { env })
  assert.equal(waiting.stdout, `wechat ${r.configId} 2026-05-19: waiting: statement not published yet; next try 2026-05-21T02:45:00Z\n`)
})

test('till reconcile: a malformed date or config id is a usage error; Till\'s refusal is shown with its status', async (t) => {
  const r = await reconTill(t)
  r.ta.clock.set(new Date('2026-05-21T02:30:00.000Z'))
  const env = envFor(r.ta)
  for (const [args, error] of [
    [['reconcile'], '--date is required'],
    [['reconcile', '--date', '20 May'], '--date must be a day written YYYY-MM-DD, not "20 May"'],
    [['reconcile', '--date', DAY, '--config', 'wechat'], '--config must be an id starting with pc_'],
  ] as const) {
    const res = await till([...args], { env })
    assert.equal(res.code, 2, args.join(' '))
    assert.ok(res.stderr.startsWith(`till reconcile: ${error}`), res.stderr)
  }
  const today = await till(['reconcile', '--date', '2026-05-21', '--config', r.configId], { env })
  assert.equal(today.code, 1)
  assert.equal(today.stderr, 'error: date: must be a day before today in the provider\'s time zone (Asia/Shanghai) (HTTP 400)\n')
  assert.match((await till(['reconcile', '--help'], { env })).stdout, /^usage: till reconcile --date YYYY-MM-DD \[--config CONFIG_ID\] \[--json\]/)
  assert.equal((await r.q('select count(*)::int as n from statements', [])).rows[0].n, 0)
})
