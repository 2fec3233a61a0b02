/**
 * Reconciliation end to end through the real fakes (docs/reconciliation.md, issue #26 §6): for each
 * provider a Till with a live configuration at its fake, sessions paid and refunds completed there,
 * the fake's statement of the day fetched, parsed and matched through the admin API, and read back.
 * One app and fake per provider (WeChat Pay mainland and Global, Creem, Alipay); each case takes a day of its own. The drivers are in
 * helpers/recon-drivers.ts: a provider more is a driver more.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileDueDays } from '../../src/jobs/statements.js'
import { addDays } from '../../src/domain/reconciliation.js'
import { beginDay, RECON_DRIVERS, timeOn, type Paid, type ReconGap, type ReconSubject } from '../helpers/recon-drivers.js'

const ZERO = { matched: 0, expected: 0, missing_in_till: 0, missing_at_provider: 0, amount_differs: 0, currency_differs: 0, status_differs: 0 }
// Configurations made the morning before the first case's day, so the job looks from there.
const START = new Date('2026-05-19T12:00:00.000Z')

async function run(s: ReconSubject, day: string) {
  const res = await s.ta.admin('POST', '/reconciliation/runs', { date: day, providerConfigId: s.configId })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.equal(res.body.data.length, 1)
  return res.body.data[0]
}

async function report(s: ReconSubject, day: string) {
  const res = await s.ta.admin('GET', `/reconciliation/reports?provider_config_id=${s.configId}&date=${day}`)
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data[0]
}

/** The report's items: its mismatches, or those of one category. */
async function items(s: ReconSubject, reportId: string, category?: string) {
  const res = await s.ta.admin('GET', `/reconciliation/mismatches?report_id=${reportId}&limit=100${category ? `&category=${category}` : ''}`)
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data as any[]
}

const tillIds = (list: any[]) => list.map((i) => i.till?.id).sort()

async function kept(s: ReconSubject, reportId: string) {
  const count = async (table: string) => (await s.ta.database.pool.query(`select count(*)::int as n from ${table} where statement_id = $1`, [reportId])).rows[0].n
  return { files: await count('statement_files'), lines: await count('statement_lines'), items: await count('reconciliation_items') }
}

/** A day of one payment, the knob set, run once its statement is due. */
async function onePaymentDay(s: ReconSubject, knob: (day: string) => Promise<unknown>) {
  const day = beginDay(s)
  const p = await s.pay()
  await knob(day)
  s.ta.clock.set(s.readyAt(day))
  return { day, p, first: await run(s, day) }
}

async function onlyMatched(s: ReconSubject, r: any, p: Paid) {
  assert.equal(r.state, 'reconciled', r.reason)
  assert.deepEqual(r.counts, { ...ZERO, matched: 1 })
  assert.deepEqual(tillIds(await items(s, r.id, 'matched')), [p.recordId])
}

interface Case {
  name: string
  /** What the case needs that a driver may list among its gaps (it runs as a todo there). */
  needs?: ReconGap[]
  /** The case needs the fake to put a line on the next day's statement. */
  lateRefund?: boolean
  run(s: ReconSubject): Promise<void>
}

const CASES: Case[] = [{
  name: 'a clean day: every payment and refund matched, no mismatch of any category, the totals agree',
  needs: ['refunds'],
  async run(s) {
    const day = beginDay(s)
    const a = await s.pay()
    const b = await s.pay(2500)
    const part = await s.refund(a, 500)
    const full = await s.refund(b)
    s.ta.clock.set(s.readyAt(day))
    const r = await run(s, day)
    assert.equal(r.state, 'reconciled', r.reason)
    assert.deepEqual(r.counts, { ...ZERO, matched: 4 })
    assert.equal(r.openMismatches, 0)
    assert.deepEqual(await items(s, r.id), [])
    assert.deepEqual(tillIds(await items(s, r.id, 'matched')), [a.recordId, b.recordId, part.refundId, full.refundId].sort())
    assert.deepEqual(r.totals.map((x: any) => [x.currency, x.agrees]), [[a.currency, s.summary ? true : null]])
    const [totals] = r.totals
    assert.deepEqual(totals.till, { payments: { count: 2, amount: a.amount + b.amount }, refunds: { count: 2, amount: 500 + b.amount } })
    assert.deepEqual(totals.lines.payments, totals.till.payments)
    assert.equal(totals.lines.refunds.amount, 500 + b.amount)
  },
}, {
  name: 'each injected kind is found once, named by its category, and nothing else is flagged',
  needs: ['refunds'],
  async run(s) {
    const day = beginDay(s)
    const ok = await s.pay()
    const dropped = await s.pay()
    const refundedPay = await s.pay()
    const refundDropped = await s.refund(refundedPay, 700)
    const cheaper = await s.pay()
    // The kinds a statement's format can show: Alipay's trade bill names no currency and lists refunds made only.
    const otherCurrency = s.otherCurrency ? await s.pay() : null
    const flippedPay = s.statusDiffers ? await s.pay() : null
    const flipped = flippedPay ? await s.statusDiffers!(day, flippedPay) : null
    await s.ctl.statementDrop(day, { ref: dropped.ref, kind: 'payment' })
    await s.ctl.statementDrop(day, { ref: refundDropped.ref, kind: 'refund' })
    await s.ctl.statementAmount(day, { ref: cheaper.ref, kind: 'payment' }, cheaper.amount - 100)
    if (otherCurrency) await s.ctl.statementCurrency(day, { ref: otherCurrency.ref, kind: 'payment' }, s.otherCurrency!)
    const unknown = await s.ctl.statementUnknownPayment(day, { amount: 777, currency: ok.currency })
    s.ta.clock.set(s.readyAt(day))
    const r = await run(s, day)
    assert.equal(r.state, 'reconciled', r.reason)
    // An orphan line is named by the knob's unknown payment (the provider's transaction id, or Creem's order), everything else by Till's id.
    const unknownIds = [unknown.ref, unknown.providerRef]
    const found = (await items(s, r.id)).map((i) => [i.category, i.till?.id ?? (unknownIds.includes(i.line.providerRef) ? 'unknown' : i.line.providerRef)]).sort()
    assert.deepEqual(found, [
      ['amount_differs', cheaper.recordId],
      ...(otherCurrency ? [['currency_differs', otherCurrency.recordId]] : []),
      ['missing_at_provider', dropped.recordId],
      ['missing_at_provider', refundDropped.refundId],
      ['missing_in_till', 'unknown'],
      ...(flipped ? [['status_differs', flipped]] : []),
    ].sort(), 'exactly these mismatches')
    assert.deepEqual(r.counts, {
      ...ZERO, matched: flippedPay ? 3 : 2, missing_in_till: 1, missing_at_provider: 2, amount_differs: 1, currency_differs: otherCurrency ? 1 : 0, status_differs: flipped ? 1 : 0,
    })
    // Everything else matched: the untouched payment, and the payments whose refunds were knobbed.
    assert.deepEqual(tillIds(await items(s, r.id, 'matched')), [ok.recordId, refundedPay.recordId, ...(flippedPay ? [flippedPay.recordId] : [])].sort())
  },
}, {
  name: 'a late statement: the run says it is not published, the job reconciles it once it is',
  needs: ['relisting'],
  async run(s) {
    const { day, p, first: held } = await onePaymentDay(s, (day) => s.ctl.statementHold(day))
    if (s.holdWaits) {
      assert.equal(held.state, 'waiting')
      assert.match(held.reason, s.heldReason)
      assert.deepEqual(await kept(s, held.id), { files: 0, lines: 0, items: 0 })
      await s.ctl.statementRelease(day)
      // The job asks again when the report says, not before.
      s.ta.clock.set(new Date(new Date(held.nextTryAt).getTime() - 1000))
      await reconcileDueDays(s.ta.deps)
      assert.equal((await report(s, day)).state, 'waiting')
      s.ta.clock.set(new Date(held.nextTryAt))
      await reconcileDueDays(s.ta.deps)
    } else {
      // Nothing to wait for: the day reads as one without business, so the payment is missing at the provider until the day is run again.
      assert.equal(held.state, 'reconciled', held.reason)
      assert.deepEqual(held.counts, { ...ZERO, missing_at_provider: 1 })
      await s.ctl.statementRelease(day)
      await run(s, day)
    }
    await onlyMatched(s, await report(s, day), p)
  },
}, {
  name: 'a corrupted download is refused, nothing of it kept and the reason recorded; the next run uses a whole one',
  async run(s) {
    const { day, p, first: refused } = await onePaymentDay(s, (day) => s.ctl.statementCorrupt(day))
    assert.equal(refused.state, 'waiting')
    assert.match(refused.reason, s.corruptReason)
    assert.deepEqual(await kept(s, refused.id), { files: 0, lines: 0, items: 0 })
    await onlyMatched(s, await run(s, day), p)
  },
}, {
  name: 'a payment refunded twice: both refunds matched, neither missing at the provider',
  async run(s) {
    const day = beginDay(s)
    const p = await s.pay(3000)
    const part = await s.refund(p, 1000)
    const rest = await s.refund(p)
    s.ta.clock.set(s.readyAt(day))
    const r = await run(s, day)
    assert.equal(r.openMismatches, 0)
    const matched = await items(s, r.id, 'matched')
    if (s.refundsOnPaymentDay) {
      // One line states both: one item, named by the first refund, listing both.
      assert.deepEqual(r.counts, { ...ZERO, matched: 2 })
      const refund = matched.find((i) => i.kind === 'refund')
      assert.deepEqual(refund.till.refunds, [part.refundId, rest.refundId])
      assert.equal(refund.till.amount, 3000)
      assert.equal(refund.line.amount, 3000)
    } else {
      assert.deepEqual(r.counts, { ...ZERO, matched: 3 })
      assert.deepEqual(tillIds(matched), [p.recordId, part.refundId, rest.refundId].sort())
    }
  },
}, {
  name: 'a refund made the day after its payment\'s day was reconciled: on the statement of the day the provider lists it, never missing',
  async run(s) {
    const { day, p, first } = await onePaymentDay(s, async () => {})
    await onlyMatched(s, first, p)
    const next = addDays(day, 1)
    s.ta.clock.set(timeOn(next, '12:00', s.zone))
    const r = await s.refund(p)
    s.ta.clock.set(s.readyAt(next))
    const later = await run(s, next)
    const again = await run(s, day)
    if (s.refundsOnPaymentDay) {
      // Listed on the payment's day: that day run again reads the provider again and pairs it; the refund's own day has nothing.
      assert.deepEqual(later.counts, ZERO)
      assert.deepEqual(again.counts, { ...ZERO, matched: 2 })
      assert.deepEqual(tillIds(await items(s, again.id, 'matched')), [p.recordId, r.refundId].sort())
    } else {
      assert.deepEqual(later.counts, { ...ZERO, matched: 1 })
      assert.deepEqual(tillIds(await items(s, later.id, 'matched')), [r.refundId])
      assert.deepEqual(again.counts, { ...ZERO, matched: 1 })
    }
  },
}, {
  name: 'a refund line that arrives a day late moves its pair from expected to matched',
  lateRefund: true,
  async run(s) {
    const day = beginDay(s)
    const p = await s.pay()
    // A minute before midnight in Till; the provider's clock a little ahead counts the refund in the next day.
    s.ta.clock.set(timeOn(day, '23:58', s.zone))
    await s.ctl.clockSkew(150)
    const r = await s.refund(p)
    await s.ctl.clockSkew(0)
    s.ta.clock.set(s.readyAt(day))
    const first = await run(s, day)
    assert.deepEqual(first.counts, { ...ZERO, matched: 1, expected: 1 })
    assert.deepEqual(tillIds(await items(s, first.id, 'expected')), [r.refundId])
    const next = addDays(day, 1)
    s.ta.clock.set(s.readyAt(next))
    const second = await run(s, next)
    assert.deepEqual(second.counts, ZERO, 'the line is counted on its Till day, not twice')
    const moved = await report(s, day)
    assert.deepEqual(moved.counts, { ...ZERO, matched: 2 })
    const [item] = (await items(s, moved.id, 'matched')).filter((i) => i.till.id === r.refundId)
    assert.equal(item.line.day, next)
  },
}]

for (const driver of RECON_DRIVERS) {
  test(`${driver.name}: reconciliation end to end through its fake`, async (t) => {
    const s = await driver.start(t, START)
    for (const c of CASES) {
      if (c.lateRefund && !s.lateRefund) continue
      const todo = c.needs?.map((g) => s.gaps[g]).find(Boolean)
      await t.test(c.name, { todo }, () => c.run(s))
    }
  })
}
