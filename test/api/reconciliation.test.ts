/**
 * Reconciliation against the providers' statements (docs/reconciliation.md), through the admin API
 * and the daily job: a clean day, each kind of mismatch, a statement published late or refused, a
 * re-run, a line that comes a day late, the merchant's webhook event and the gauge (the statement's
 * files, kept and read back: reconciliation-files.test.ts). The provider's
 * statement comes from a stub source attached to the WeChat Pay adapter (helpers/reconciliation.ts).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileDueDays } from '../../src/jobs/statements.js'
import { deliverDue } from '../../src/jobs/outbox.js'
import { acknowledgeItem } from '../../src/services/reconciliation-reports.js'
import { wechatCredentials } from '../helpers/credentials.js'
import { createEndpoint, startReceiver, TRUST_TEST_CA, verifySignature } from '../helpers/receiver.js'
import {
  itemsOf, lineOf, reconAt as at, RECON_DAY as DAY, RECON_NEXT_MORNING as NEXT_MORNING, reconTill, runReconciliation as run, unknownLine, type ReconTill, type SeededPayment,
} from '../helpers/reconciliation.js'

async function statementRow(r: ReconTill, day = DAY) {
  const { rows } = await r.q('select * from statements where provider_config_id = $1 and day = $2', [r.configId, day])
  return rows[0] as Record<string, any> | undefined
}

const mismatchesOf = async (r: ReconTill, reportId: string) => (await r.ta.admin('GET', `/reconciliation/mismatches?report_id=${reportId}&limit=100`)).body.data as any[]

async function gauge(r: ReconTill, provider = 'wechat', mode = 'live') {
  const text = await r.ta.deps.metrics.registry.metrics()
  const line = text.split('\n').find((l) => l.startsWith(`till_reconciliation_open_mismatches{provider="${provider}",mode="${mode}"}`))
  return Number(line?.split(' ').at(-1) ?? NaN)
}

/** A day with one payment and refund of each kind of mismatch, and one that matches. */
async function dayWithEveryKind(r: ReconTill) {
  const ok = await r.payment({ paidAt: at('10:00') })
  const dropped = await r.payment({ paidAt: at('11:00') })
  const cheaper = await r.payment({ paidAt: at('12:00') })
  const otherCurrency = await r.payment({ paidAt: at('13:00') })
  const refused = await r.refund(ok, { amount: 500, status: 'failed', at: at('14:00') })
  r.stub.set(DAY, {
    lines: [
      lineOf(ok),
      lineOf(cheaper, { amount: 9800 }),
      lineOf(otherCurrency, { currency: 'USD' }),
      unknownLine({ at: at('15:00') }),
      lineOf(refused, { status: 'succeeded' }),
    ],
  })
  return { ok, dropped, cheaper, otherCurrency, refused }
}

test('a clean day reconciles with zero mismatches: every payment and refund matched, totals agree, no event', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  const b = await r.payment({ paidAt: at('11:30'), amount: 1500 })
  const f = await r.refund(a, { amount: 900, at: at('12:00') })
  r.stub.set(DAY, { lines: [lineOf(a), lineOf(b), lineOf(f)] })
  r.ta.clock.set(NEXT_MORNING)

  const res = await run(r)
  assert.equal(res.status, 200, JSON.stringify(res.body))
  const [report] = res.body.data
  assert.equal(report.state, 'reconciled')
  assert.equal(report.date, DAY)
  assert.equal(report.zone, 'Asia/Shanghai')
  assert.deepEqual(report.counts, { matched: 3, expected: 0, missing_in_till: 0, missing_at_provider: 0, amount_differs: 0, currency_differs: 0, status_differs: 0 })
  assert.equal(report.openMismatches, 0)
  const [cny] = report.totals
  assert.deepEqual([cny.currency, cny.agrees], ['CNY', true])
  assert.deepEqual(cny.lines.payments, { count: 2, amount: 11_400 })
  assert.deepEqual(cny.till, { payments: { count: 2, amount: 11_400 }, refunds: { count: 1, amount: 900 } })
  // Fees are shown (the lines' sum), never a mismatch.
  assert.equal(cny.lines.fees, lineOf(a).fee! + lineOf(b).fee!)
  assert.deepEqual(await mismatchesOf(r, report.id), [])
  assert.equal((await r.q(`select count(*)::int as n from events where type = 'reconciliation.mismatches_found'`, [])).rows[0].n, 0)
  assert.equal(await gauge(r), 0)
})

test('each injected mismatch is found once, named by its category, with both sides and the provider\'s own fields', async (t) => {
  const r = await reconTill(t)
  const d = await dayWithEveryKind(r)
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.deepEqual(report.counts, { matched: 1, expected: 0, missing_in_till: 1, missing_at_provider: 1, amount_differs: 1, currency_differs: 1, status_differs: 1 })
  assert.equal(report.openMismatches, 5)

  const list = await mismatchesOf(r, report.id)
  const by = Object.fromEntries(list.map((i) => [i.category, i]))
  assert.equal(list.length, 5)
  assert.deepEqual(by.missing_at_provider.till.id, d.dropped.recordId)
  assert.equal(by.missing_at_provider.line, null)
  assert.deepEqual([by.amount_differs.till.amount, by.amount_differs.line.amount], [9900, 9800])
  assert.deepEqual(by.amount_differs.differences, [{ field: 'amount', till: 9900, statement: 9800 }])
  assert.deepEqual([by.currency_differs.till.currency, by.currency_differs.line.currency], ['CNY', 'USD'])
  assert.equal(by.missing_in_till.till, null)
  assert.equal(by.missing_in_till.line.fields['商品名称'], '<script>alert("x")</script>', 'the line\'s fields as the statement had them')
  assert.deepEqual([by.status_differs.till.id, by.status_differs.till.status, by.status_differs.line.status], [d.refused.refundId, 'failed', 'succeeded'])
  for (const i of list) {
    assert.equal(i.reportId, report.id)
    assert.equal(i.date, DAY)
    assert.equal(i.acknowledgedAt, null)
  }
  // A category can be asked for, matched ones too.
  const matched = (await r.ta.admin('GET', `/reconciliation/mismatches?report_id=${report.id}&category=matched`)).body.data
  assert.deepEqual(matched.map((i: any) => i.till.id), [d.ok.recordId])
})

test('strict scoping: a line naming another configuration\'s or another merchant\'s payment is missing in Till here', async (t) => {
  const r = await reconTill(t)
  const mine = await r.payment({ paidAt: at('10:00') })
  const second = await r.ta.admin('POST', `/merchants/${r.ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'second', credentials: wechatCredentials() })
  const viaSecond = await r.payment({ paidAt: at('11:00'), configId: second.body.id })
  const other = await r.ta.newMerchant('Other')
  const otherConfig = await r.ta.admin('POST', `/merchants/${other.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  const othersPayment = await r.payment({ paidAt: at('12:00'), merchantId: other.id, configId: otherConfig.body.id })
  r.stub.set(DAY, { lines: [lineOf(mine), lineOf(viaSecond), lineOf(othersPayment)] })
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.deepEqual([report.counts.matched, report.counts.missing_in_till], [1, 2])
  const items = await itemsOf(r.ta, report.id)
  assert.ok(items.every((i) => i.merchant_id === r.ta.merchant.id))
  assert.deepEqual(items.filter((i) => i.category === 'missing_in_till').map((i) => i.line.tillRef).sort(), [viaSecond.attemptId, othersPayment.attemptId].sort())
  // The other merchant sees nothing of it.
  assert.deepEqual((await r.ta.admin('GET', `/reconciliation/reports?merchant_id=${other.id}`)).body.data, [])
})

test('per-payment refund lines (naming only the payment): each pairs with all its record\'s refunds as one, scoped like payments; covered refunds are no orphans on any day', async (t) => {
  const r = await reconTill(t)
  r.stub.source.refundLines = 'per_payment'
  const ref = async (p: { recordId: string }) => (await r.q('select provider_ref from records where id = $1', [p.recordId])).rows[0].provider_ref as string
  // Creem's shape: no refund named, only the payment, by the provider's id Till keeps on the record.
  const refundLine = async (p: SeededPayment, amount: number) =>
    lineOf(p, { kind: 'refund', tillRef: null, providerRef: null, paymentProviderRef: await ref(p), amount, fee: null, at: at('16:00') })
  const twice = await r.payment({ paidAt: at('10:00') })
  const first = await r.refund(twice, { amount: 300, at: at('14:00') })
  const later = await r.refund(twice, { amount: 200, at: new Date('2026-05-21T04:00:00.000Z') })
  const pending = await r.payment({ paidAt: at('10:10') })
  await r.refund(pending, { amount: 400, status: 'pending', at: at('14:10') })
  const refused = await r.payment({ paidAt: at('10:20') })
  const refusedRefund = await r.refund(refused, { status: 'failed', at: at('14:20') })
  const none = await r.payment({ paidAt: at('10:30') })
  const dropped = await r.payment({ paidAt: at('10:40') })
  const droppedRefund = await r.refund(dropped, { amount: 100, at: at('14:40') })
  const second = await r.ta.admin('POST', `/merchants/${r.ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'second', credentials: wechatCredentials() })
  const viaSecond = await r.payment({ paidAt: at('10:50'), configId: second.body.id })
  await r.refund(viaSecond, { at: at('14:50') })
  const lines = [lineOf(twice), lineOf(pending), lineOf(refused), lineOf(none), lineOf(dropped)]
  for (const [p, amount] of [[twice, 500], [pending, 400], [refused, refused.amount], [none, 700], [viaSecond, viaSecond.amount]] as const) {
    lines.push(await refundLine(p, amount))
  }
  r.stub.set(DAY, { lines })
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.deepEqual(report.counts, { matched: 6, expected: 1, missing_in_till: 2, missing_at_provider: 1, amount_differs: 0, currency_differs: 0, status_differs: 1 })
  const items = await itemsOf(r.ta, report.id)
  const refunds = items.filter((i) => i.kind === 'refund').map((i) => [i.category, i.till?.id ?? i.line.providerRef ?? 'line']).sort()
  assert.deepEqual(refunds, [
    ['expected', (await r.q('select id from refunds where record_id = $1', [pending.recordId])).rows[0].id],
    ['matched', first.refundId],
    ['missing_at_provider', droppedRefund.refundId],
    ['missing_in_till', 'line'],
    ['missing_in_till', 'line'],
    ['status_differs', refusedRefund.refundId],
  ].sort())
  const matched = items.find((i) => i.till?.id === first.refundId)!
  assert.deepEqual(matched.till.refunds, [first.refundId, later.refundId])
  assert.equal(matched.till.amount, 500)
  // The later refund's own day: nothing of it there.
  r.stub.set('2026-05-21', { lines: [] })
  r.ta.clock.set(new Date('2026-05-22T02:30:00.000Z'))
  const [next] = (await run(r, '2026-05-21')).body.data
  assert.equal(next.state, 'reconciled', next.reason)
  assert.equal(Object.values(next.counts).reduce((a: number, b) => a + Number(b), 0), 0, JSON.stringify(next.counts))
})

test('a statement not published yet is asked for again by the job with backoff, and reconciled once it is', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  // 09:00 in Beijing: WeChat Pay has not made the 20th's statement yet.
  r.ta.clock.set(new Date('2026-05-21T01:00:00.000Z'))
  await reconcileDueDays(r.ta.deps)
  assert.deepEqual(r.stub.fetches, [DAY], 'only past days: the 20th, the configuration\'s first')
  let s = (await statementRow(r))!
  assert.deepEqual([s.state, s.tries, s.reason], ['waiting', 1, 'statement not published yet'])
  assert.equal(s.next_try_at.toISOString(), '2026-05-21T01:15:00.000Z')

  await reconcileDueDays(r.ta.deps)
  assert.equal(r.stub.fetches.length, 1, 'not asked again before its next try')
  r.ta.clock.advance(15 * 60_000)
  await reconcileDueDays(r.ta.deps)
  assert.equal(r.stub.fetches.length, 2)
  s = (await statementRow(r))!
  assert.deepEqual([s.state, s.tries, s.next_try_at.toISOString()], ['waiting', 2, '2026-05-21T01:45:00.000Z'])

  r.stub.set(DAY, { lines: [lineOf(a)] })
  r.ta.clock.set(new Date('2026-05-21T01:45:00.000Z'))
  assert.equal(await reconcileDueDays(r.ta.deps), 1)
  s = (await statementRow(r))!
  assert.deepEqual([s.state, s.tries, s.next_try_at, s.counts.matched], ['reconciled', 0, null, 1])
  await reconcileDueDays(r.ta.deps)
  assert.equal(r.stub.fetches.length, 3, 'a reconciled day is not fetched again')
})

test('a re-run is idempotent: the same items, no new fetch, acknowledgements kept while the item is unchanged', async (t) => {
  const r = await reconTill(t)
  const d = await dayWithEveryKind(r)
  r.ta.clock.set(NEXT_MORNING)
  const [first] = (await run(r)).body.data
  const before = await itemsOf(r.ta, first.id)
  const amountItem = before.find((i) => i.category === 'amount_differs')!
  await acknowledgeItem(r.ta.deps, { merchantId: r.ta.merchant.id, mode: 'live' }, first.id, amountItem.id, 'ops@example.com', 'the customer paid the difference by card')

  r.ta.clock.advance(3600_000)
  const [second] = (await run(r)).body.data
  assert.equal(second.id, first.id)
  assert.equal(r.stub.fetches.length, 1, 'the kept files are parsed again, not fetched')
  const after = await itemsOf(r.ta, first.id)
  const strip = (rows: Record<string, any>[]) => rows.map(({ id, key, category, fingerprint, till, line }) => ({ id, key, category, fingerprint, till, line }))
  assert.deepEqual(strip(after), strip(before))
  const acked = after.find((i) => i.id === amountItem.id)!
  assert.deepEqual([acked.acknowledged_by, acked.acknowledgement_note], ['ops@example.com', 'the customer paid the difference by card'])
  assert.equal(second.openMismatches, 4)
  assert.equal((await r.q(`select count(*)::int as n from events where type = 'reconciliation.mismatches_found'`, [])).rows[0].n, 1, 'nothing new, no second event')

  // Till's side changes (a correction): the item is not the one acknowledged any more.
  await r.q('update records set amount = 9700 where id = $1', [d.cheaper.recordId])
  const [third] = (await run(r)).body.data
  const changed = (await itemsOf(r.ta, first.id)).find((i) => i.id === amountItem.id)!
  assert.deepEqual([changed.category, changed.acknowledged_at, changed.till.amount], ['amount_differs', null, 9700])
  assert.equal(third.openMismatches, 5)
  assert.equal((await r.q(`select count(*)::int as n from events where type = 'reconciliation.mismatches_found'`, [])).rows[0].n, 2)
})

test('a payment late in the evening missing from its day is expected; its line on the next day\'s statement makes it matched', async (t) => {
  const r = await reconTill(t)
  const noon = await r.payment({ paidAt: at('12:00') })
  const late = await r.payment({ paidAt: at('23:30') })
  const never = await r.payment({ paidAt: at('23:50') })
  r.stub.set(DAY, { lines: [lineOf(noon)] })
  r.ta.clock.set(NEXT_MORNING)
  await reconcileDueDays(r.ta.deps)
  const day1 = (await statementRow(r))!
  let items = await itemsOf(r.ta, day1.id)
  const expected = items.filter((i) => i.category === 'expected')
  assert.deepEqual(expected.map((i) => i.key).sort(), [late.recordId, never.recordId].sort())
  assert.equal(new Date(expected.find((i) => i.key === late.recordId)!.expected_until).toISOString(), new Date(late.paidAt.getTime() + 48 * 3600_000).toISOString())
  assert.deepEqual(day1.counts, { matched: 1, expected: 2, missing_in_till: 0, missing_at_provider: 0, amount_differs: 0, currency_differs: 0, status_differs: 0 })
  assert.equal((await r.q(`select count(*)::int as n from events where type = 'reconciliation.mismatches_found'`, [])).rows[0].n, 0, 'in flight is not a mismatch')

  // The provider counted it in the 21st (its clock, a few seconds after midnight).
  r.stub.set('2026-05-21', { lines: [lineOf(late, { at: new Date('2026-05-20T16:00:30.000Z') })] })
  r.ta.clock.set(new Date('2026-05-22T02:30:00.000Z'))
  await reconcileDueDays(r.ta.deps)
  items = await itemsOf(r.ta, day1.id)
  const moved = items.find((i) => i.key === late.recordId)!
  assert.equal(moved.category, 'matched')
  assert.equal(moved.id, expected.find((i) => i.key === late.recordId)!.id, 'the same item, now matched')
  assert.equal(moved.line.day, '2026-05-21')
  assert.equal(items.find((i) => i.key === never.recordId)!.category, 'expected')
  // The 21st's own report does not count the 20th's payment twice.
  const day2 = (await statementRow(r, '2026-05-21'))!
  assert.equal(day2.counts.matched, 0)
  assert.deepEqual(await itemsOf(r.ta, day2.id), [])

  // Two days on, the grace is over: the one never stated is a mismatch, found by the job without a new statement.
  r.ta.clock.set(new Date('2026-05-23T02:30:00.000Z'))
  await reconcileDueDays(r.ta.deps)
  items = await itemsOf(r.ta, day1.id)
  assert.equal(items.find((i) => i.key === never.recordId)!.category, 'missing_at_provider')
  assert.equal((await r.q(`select count(*)::int as n from events where type = 'reconciliation.mismatches_found'`, [])).rows[0].n, 1)
})

test('a day with mismatches sends reconciliation.mismatches_found to the merchant\'s live endpoint, once; the events API has it', async (t) => {
  const r = await reconTill(t)
  const rx = await startReceiver(t, undefined, { tls: true })
  const endpoint = await createEndpoint(r.ta, rx.url, { events: ['reconciliation.mismatches_found'] }, r.ta.merchant.liveKey)
  await dayWithEveryKind(r)
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  const results = await deliverDue(r.ta.deps, { tls: TRUST_TEST_CA })
  assert.deepEqual(results.map((x) => x.status), ['delivered'])
  const [got] = rx.requests
  assert.ok(verifySignature(endpoint.secret, got.body, got.headers['x-service-signature']))
  assert.equal(got.json.type, 'reconciliation.mismatches_found')
  assert.equal(got.json.mode, 'live')
  assert.deepEqual(got.json.data, {
    reportId: report.id, provider: 'wechat', providerConfigId: r.configId, date: DAY, counts: report.counts,
    openMismatches: 5, newMismatches: 5, totalsDiffer: [],
  })
  const listed = await r.ta.request('GET', '/api/v1/events?type=reconciliation.mismatches_found', { key: r.ta.merchant.liveKey })
  assert.deepEqual(listed.body.data.map((e: any) => e.id), [got.json.id])
  assert.deepEqual((await r.ta.request('GET', '/api/v1/events?type=reconciliation.mismatches_found', { key: r.ta.merchant.testKey })).body.data, [])

  await run(r)
  assert.deepEqual(await deliverDue(r.ta.deps, { tls: TRUST_TEST_CA }), [], 'a re-run finding the same mismatches sends nothing')
})

test('a statement whose summary disagrees with its own lines says so, and counts as a day with mismatches', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  r.stub.set(DAY, { lines: [lineOf(a)], totals: [{ kind: 'total', currency: 'CNY', payments: { count: 2, amount: 19_800 }, refunds: { count: 0, amount: 0 }, fees: 59 }] })
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.equal(report.counts.matched, 1)
  assert.deepEqual(report.totals.map((x: any) => [x.currency, x.agrees, x.statement.payments.count, x.lines.payments.count]), [['CNY', false, 2, 1]])
  const { rows } = await r.q(`select data from events where type = 'reconciliation.mismatches_found'`, [])
  assert.deepEqual(rows.map((e) => e.data.totalsDiffer), [['CNY']])
})

test('the summary\'s fees are compared with the lines\' fees: one fen apart, the totals disagree', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  const line = lineOf(a)
  r.stub.set(DAY, { lines: [line], totals: [{ kind: 'total', currency: 'CNY', payments: { count: 1, amount: a.amount }, refunds: { count: 0, amount: 0 }, fees: line.fee! + 1 }] })
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.equal(report.counts.matched, 1)
  assert.deepEqual(report.totals.map((x: any) => [x.currency, x.agrees, x.statement.fees, x.lines.fees]), [['CNY', false, line.fee! + 1, line.fee]])
})

test('a payment line stated twice pairs once: the second is missing in Till, never a second match', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  r.stub.set(DAY, { lines: [lineOf(a), lineOf(a)] })
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.deepEqual([report.counts.matched, report.counts.missing_in_till], [1, 1])
  assert.deepEqual((await mismatchesOf(r, report.id)).map((m: any) => [m.category, m.line.tillRef]), [['missing_in_till', a.attemptId]])
})

test('the gauge counts open mismatches per provider and mode; acknowledging one takes it off', async (t) => {
  const r = await reconTill(t)
  await dayWithEveryKind(r)
  r.ta.clock.set(NEXT_MORNING)
  assert.equal(await gauge(r), 0)
  const [report] = (await run(r)).body.data
  assert.equal(await gauge(r), 5)
  assert.equal(await gauge(r, 'wechat', 'test'), 0)
  const [one] = await mismatchesOf(r, report.id)
  await acknowledgeItem(r.ta.deps, { merchantId: r.ta.merchant.id, mode: 'live' }, report.id, one.id, 'ops@example.com', 'seen')
  assert.equal(await gauge(r), 4)
  const open = (await r.ta.admin('GET', `/reconciliation/mismatches?report_id=${report.id}&open=true`)).body.data
  assert.equal(open.length, 4)
  assert.ok(!open.some((i: any) => i.id === one.id))
})

test('admin API: bad input is refused in the error shape and changes nothing; reports list and page; a day being run is 409', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  r.stub.set(DAY, { lines: [lineOf(a)] })
  r.ta.clock.set(NEXT_MORNING)
  const bad = async (body: unknown, param: string, error: RegExp) => {
    const res = await r.ta.admin('POST', '/reconciliation/runs', body)
    assert.equal(res.status, 400, JSON.stringify(res.body))
    assert.equal(res.body.code, 'invalid_field')
    assert.equal(res.body.param, param)
    assert.match(res.body.error, error)
  }
  await bad({ date: '20.05.2026' }, 'date', /^date: /)
  await bad({ date: '2026-02-30' }, 'date', /^date: must be a day written YYYY-MM-DD$/)
  await bad({ date: '2026-05-21', providerConfigId: r.configId }, 'date', /before today in the provider's time zone \(Asia\/Shanghai\)/)
  await bad({ date: DAY, providerConfigId: 'pc_unknown' }, 'providerConfigId', /no such provider configuration/)
  assert.equal((await r.ta.admin('POST', '/reconciliation/runs', { date: DAY, extra: 1 })).body.code, 'unknown_field')
  assert.equal((await r.ta.request('POST', '/admin/v1/reconciliation/runs', { body: { date: DAY } })).status, 401)
  assert.equal((await r.q('select count(*)::int as n from statements', [])).rows[0].n, 0, 'nothing made')

  // Without a configuration: every enabled one whose provider has statements.
  const all = await r.ta.admin('POST', '/reconciliation/runs', { date: DAY })
  assert.deepEqual(all.body.data.map((x: any) => [x.providerConfigId, x.state]), [[r.configId, 'reconciled']])
  await run(r, '2026-05-19')
  const page1 = (await r.ta.admin('GET', `/reconciliation/reports?merchant_id=${r.ta.merchant.id}&limit=1`)).body
  assert.deepEqual([page1.data.map((x: any) => x.date), page1.hasMore], [[DAY], true])
  const page2 = (await r.ta.admin('GET', `/reconciliation/reports?merchant_id=${r.ta.merchant.id}&limit=1&starting_after=${page1.data[0].id}`)).body
  assert.deepEqual([page2.data.map((x: any) => x.date), page2.hasMore], [['2026-05-19'], false])
  assert.deepEqual((await r.ta.admin('GET', `/reconciliation/reports?date=2026-05-19`)).body.data.map((x: any) => x.id), [page2.data[0].id])
  const one = await r.ta.admin('GET', `/reconciliation/reports/${page1.data[0].id}`)
  assert.deepEqual(one.body, page1.data[0])
  assert.equal((await r.ta.admin('GET', '/reconciliation/reports/stm_000000000000000000000000')).status, 404)
  assert.equal((await r.ta.admin('GET', '/reconciliation/reports?starting_after=stm_x')).body.param, 'starting_after')

  // Another run holds the day (its lease not lapsed): this one is refused, and changes nothing.
  await r.q(`update statements set leased_until = $1, lease_token = 'other' where day = $2`, [new Date(NEXT_MORNING.getTime() + 60_000), DAY])
  const busy = await run(r)
  assert.equal(busy.status, 409)
  assert.equal(busy.body.code, 'conflict')
})

test('a payment Till learns of after a run: its line, expected while the attempt was open, pairs with the record on the next run', async (t) => {
  const r = await reconTill(t)
  // The customer paid; the notification is lost and the attempt is still open when the day is run.
  const open = await r.payment({ paidAt: at('10:00'), record: false })
  r.stub.set(DAY, { lines: [lineOf(open)] })
  r.ta.clock.set(NEXT_MORNING)
  const [first] = (await run(r)).body.data
  const [before] = await itemsOf(r.ta, first.id)
  assert.deepEqual([before.category, before.key, before.till], ['expected', `line:tradebill:${before.line.line}`, null])

  // Till's own reconciliation then records the payment: the next run pairs it, and the orphan line's item goes.
  const recordId = 'rec_' + open.attemptId.slice(4)
  await r.q(`insert into records (id, session_id, attempt_id, merchant_id, mode, provider, provider_config_id, provider_ref, amount, currency, status, paid_at, created_at)
             values ($1, $2, $3, $4, 'live', 'wechat', $5, 'wx1', 9900, 'CNY', 'paid', $6, $6)`, [recordId, open.sessionId, open.attemptId, r.ta.merchant.id, r.configId, open.paidAt])
  const [second] = (await run(r)).body.data
  const after = await itemsOf(r.ta, first.id)
  assert.deepEqual(after.map((i) => [i.key, i.category]), [[recordId, 'matched']])
  assert.deepEqual([second.counts.matched, second.counts.expected], [1, 0])
})

test('two runs of a day at once: one runs it, the other is refused or finds it done; one set of items, one event', async (t) => {
  const r = await reconTill(t)
  await dayWithEveryKind(r)
  r.ta.clock.set(NEXT_MORNING)
  const answers = await Promise.all([run(r), run(r), reconcileDueDays(r.ta.deps)])
  const statuses = answers.slice(0, 2).map((a) => (a as Awaited<ReturnType<typeof run>>).status)
  assert.ok(statuses.every((s) => s === 200 || s === 409), JSON.stringify(statuses))
  const s = (await statementRow(r))!
  assert.equal(s.state, 'reconciled')
  assert.equal(r.stub.fetches.length, 1, 'fetched once')
  const items = await itemsOf(r.ta, s.id)
  assert.equal(items.length, 6)
  assert.equal(new Set(items.map((i) => i.key)).size, 6)
  assert.equal((await r.q(`select count(*)::int as n from events where type = 'reconciliation.mismatches_found'`, [])).rows[0].n, 1)
})

test('a run that died holding the day: the job leaves it until its lease lapses, then runs it', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  r.stub.set(DAY, { lines: [lineOf(a)] })
  r.ta.clock.set(NEXT_MORNING)
  // As a process killed in the middle of a run leaves it.
  await r.q(`insert into statements (id, merchant_id, mode, provider, provider_config_id, day, zone, state, leased_until, lease_token)
             values ('stm_dead00000000000000000000', $1, 'live', 'wechat', $2, $3, 'Asia/Shanghai', 'waiting', $4, 'dead')`,
  [r.ta.merchant.id, r.configId, DAY, new Date(NEXT_MORNING.getTime() + 10 * 60_000)])
  assert.equal(await reconcileDueDays(r.ta.deps), 0)
  assert.deepEqual(r.stub.fetches, [])
  r.ta.clock.advance(10 * 60_000)
  assert.equal(await reconcileDueDays(r.ta.deps), 1)
  const s = (await statementRow(r))!
  assert.deepEqual([s.id, s.state, s.leased_until, s.counts.matched], ['stm_dead00000000000000000000', 'reconciled', null, 1])
})
