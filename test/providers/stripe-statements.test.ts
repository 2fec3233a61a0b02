/**
 * Stripe's day for reconciliation: the balance transactions of a UTC day, paged, through Till's
 * reconciliation. Payments and refunds match Till's records and refunds, Stripe's fees are kept on
 * the lines and never a mismatch, and movements that are not Till's (a dispute's adjustment) make no line.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { gathered } from '../../src/providers/statement-stream.js'
import { setup, stripeStatementReadyAt } from '../helpers/stripe.js'
import { stripeTill } from '../helpers/stripe-till.js'

const ZERO = { matched: 0, expected: 0, missing_in_till: 0, missing_at_provider: 0, amount_differs: 0, currency_differs: 0, status_differs: 0 }

test('a clean Stripe day through Till: two payments, a partial and a full refund matched, fees on the lines, a dispute adjustment no mismatch', async (t) => {
  const c = await stripeTill(t, {}, { at: new Date('2026-05-19T12:00:00Z') })
  c.ta.clock.set(new Date('2026-05-20T09:00:00Z'))
  const a = await c.paid()
  c.ta.clock.advance(60_000)
  const b = await c.paid({ amount: 2500 })
  c.ta.clock.advance(60_000)
  const part = (await c.refund(a.recordId, 500)).body.refund
  const full = (await c.refund(b.recordId)).body.refund
  await c.ctl.dispute(a.paymentIntent)
  c.ta.clock.set(stripeStatementReadyAt('2026-05-20'))
  const res = await c.ta.admin('POST', '/reconciliation/runs', { date: '2026-05-20', providerConfigId: c.configId })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  const [r] = res.body.data
  assert.equal(r.state, 'reconciled', r.reason)
  assert.deepEqual(r.counts, { ...ZERO, matched: 4 })
  assert.equal(r.openMismatches, 0)
  const lines = await c.query('select kind, till_ref, amount::int, currency, fee::int from statement_lines where statement_id = $1 order by kind, amount', [r.id])
  assert.deepEqual(lines, [
    { kind: 'payment', till_ref: a.attemptId, amount: 1234, currency: 'HKD', fee: 44 },
    { kind: 'payment', till_ref: b.attemptId, amount: 2500, currency: 'HKD', fee: 90 },
    { kind: 'refund', till_ref: part.id, amount: 500, currency: 'HKD', fee: 0 },
    { kind: 'refund', till_ref: full.id, amount: 2500, currency: 'HKD', fee: 0 },
  ])
})

test('the balance is read page by page with starting_after, within the day\'s created range; not before an hour after the UTC day', async (t) => {
  const s = await setup(t, { statementPageSize: 2 })
  for (let i = 0; i < 3; i++) await s.paid({ amount: 1000 + i })
  const early = await s.provider.statements!.fetch(s.cfg, '2026-05-20')
  assert.equal(early.ready, false)
  s.clock.set(stripeStatementReadyAt('2026-05-20'))
  const day = await s.provider.statements!.fetch(s.cfg, '2026-05-20')
  assert.ok(day.ready)
  const files = []
  for await (const f of day.files) files.push({ ...f, bytes: await gathered(f.body) })
  assert.deepEqual(files.map((f) => f.name), ['balance-1', 'balance-2'])
  const lists = (await s.ctl.requests()).filter((r) => r.path.startsWith('/v1/balance_transactions')).map((r) => r.path)
  const from = Date.parse('2026-05-20T00:00:00Z') / 1000
  assert.equal(lists[0], `/v1/balance_transactions?created[gte]=${from}&created[lt]=${from + 86400}&limit=2&expand[]=data.source`)
  assert.match(lists[1], /&starting_after=txn_/)
  const items = []
  for await (const x of s.provider.statements!.parse(files.map((f) => ({ ...f, body: (async function* () { yield f.bytes })() })))) items.push(x)
  assert.deepEqual(items.map((x) => (x.kind === 'total' ? x.kind : x.amount)).sort(), [1000, 1001, 1002])
  // Another day's range holds none of them, and is ready with one empty page.
  const other = await s.provider.statements!.fetch(s.cfg, '2026-05-19')
  assert.ok(other.ready)
  const otherFiles = []
  for await (const f of other.files) otherFiles.push(JSON.parse((await gathered(f.body)).toString()))
  assert.deepEqual(otherFiles.map((f) => f.data.length), [0])
})
