/**
 * Alipay's trade bill reconciled end to end: a real Till with a live Alipay configuration at
 * `till fake alipay`, sessions paid through the fake, a partial refund through the API, each day's
 * bill fetched and matched by the admin API (docs/reconciliation.md). A clean day has no mismatch
 * and totals that agree; each knob is found once, in its category.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { alipayBillPublishedAt } from '../helpers/alipay.js'
import { alipayTill, type AlipayTill } from '../helpers/alipay-till.js'

const NONE = { matched: 0, expected: 0, missing_in_till: 0, missing_at_provider: 0, amount_differs: 0, currency_differs: 0, status_differs: 0 }

/** Noon in Beijing on `day`: two sessions paid by QR, the first refunded in part. */
async function aDay(a: AlipayTill, day: string) {
  a.ta.clock.set(new Date(`${day}T12:00:00+08:00`))
  const p1 = await a.paid({ amount: 9900 })
  a.ta.clock.advance(60_000)
  const p2 = await a.paid({ amount: 1234 })
  a.ta.clock.advance(60_000)
  const refund = await a.refund(p1.recordId, 5000)
  assert.equal(refund.status, 200, JSON.stringify(refund.body))
  assert.equal(refund.body.refund.status, 'succeeded')
  return { p1, p2, refundId: refund.body.refund.id as string }
}

async function run(a: AlipayTill, date: string) {
  const res = await a.ta.admin('POST', '/reconciliation/runs', { date, providerConfigId: a.configId })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data[0]
}

async function mismatches(a: AlipayTill, reportId: string) {
  const res = await a.ta.admin('GET', `/reconciliation/mismatches?report_id=${reportId}`)
  return (res.body.data as any[]).map((m) => [m.kind, m.category, m.till?.ref ?? null, m.line?.tillRef ?? null])
}

test('Alipay end to end: a clean day reconciles with no mismatch and totals that agree; each knob is found once with its category; a late or damaged bill waits', async (t) => {
  const a = await alipayTill(t)
  const days = ['2026-05-20', '2026-05-21', '2026-05-22', '2026-05-23', '2026-05-24', '2026-05-25', '2026-05-26']
  const [clean, dropped, amount, unknown, refundDropped, held, corrupt] = days
  const d = Object.fromEntries(await days.reduce(async (acc, day) => [...(await acc), [day, await aDay(a, day)] as const], Promise.resolve([] as (readonly [string, Awaited<ReturnType<typeof aDay>>])[])))
  await a.ctl.statementDrop(dropped, { ref: d[dropped].p2.attemptId })
  await a.ctl.statementAmount(amount, { ref: d[amount].p1.attemptId }, 9800)
  const stranger = await a.ctl.statementUnknownPayment(unknown, { amount: 777 })
  await a.ctl.statementDrop(refundDropped, { ref: d[refundDropped].refundId, kind: 'refund' })
  await a.ctl.statementHold(held)
  await a.ctl.statementCorrupt(corrupt)
  a.ta.clock.set(alipayBillPublishedAt(days.at(-1)!))

  const report = await run(a, clean)
  assert.deepEqual([report.state, report.zone, report.provider], ['reconciled', 'Asia/Shanghai', 'alipay'])
  assert.deepEqual(report.counts, { ...NONE, matched: 3 })
  const [cny] = report.totals
  assert.deepEqual([cny.currency, cny.agrees], ['CNY', true])
  assert.deepEqual(cny.statement, { payments: { count: 2, amount: 11134 }, refunds: { count: 1, amount: 5000 }, fees: 36 })
  assert.deepEqual(cny.till, { payments: { count: 2, amount: 11134 }, refunds: { count: 1, amount: 5000 } })
  assert.deepEqual(await mismatches(a, report.id), [])

  const found = async (day: string) => {
    const r = await run(a, day)
    assert.equal(r.totals[0].agrees, true, `${day}: the bill's summary follows its lines`)
    return { counts: r.counts, items: await mismatches(a, r.id) }
  }
  assert.deepEqual(await found(dropped), { counts: { ...NONE, matched: 2, missing_at_provider: 1 }, items: [['payment', 'missing_at_provider', d[dropped].p2.attemptId, null]] })
  assert.deepEqual(await found(amount), { counts: { ...NONE, matched: 2, amount_differs: 1 }, items: [['payment', 'amount_differs', d[amount].p1.attemptId, d[amount].p1.attemptId]] })
  assert.deepEqual(await found(unknown), { counts: { ...NONE, matched: 3, missing_in_till: 1 }, items: [['payment', 'missing_in_till', null, stranger.ref]] })
  assert.deepEqual(await found(refundDropped), { counts: { ...NONE, matched: 2, missing_at_provider: 1 }, items: [['refund', 'missing_at_provider', d[refundDropped].refundId, null]] })

  // Not made yet, or a damaged zip: the day waits, nothing kept; once the bill is whole it reconciles clean.
  for (const [day, reason, undo] of [
    [held, /has not made/, () => a.ctl.statementRelease(held)],
    [corrupt, /zip is damaged/, async () => {}],
  ] as const) {
    const waiting = await run(a, day)
    assert.equal(waiting.state, 'waiting', day)
    assert.match(waiting.reason, reason)
    await undo()
    const again = await run(a, day)
    assert.deepEqual([again.state, again.counts], ['reconciled', { ...NONE, matched: 3 }], day)
  }
})
