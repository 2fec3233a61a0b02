/**
 * Reconciliation end to end through the real fakes (test/reconciliation/providers.test.ts): one
 * small driver per provider that starts a Till with a live configuration pointing at the fake, pays
 * sessions and completes refunds there the way the provider tests do, and names what its statement
 * can show. A provider more is a driver more; the cases stay as they are.
 */
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import { addDays, dayIn } from '../../src/domain/reconciliation.js'
import type { statementKnobCalls } from '../../src/providers/fake-kit/statement-knobs.js'
import { startAttempt } from '../../src/services/attempts.js'
import type { TestApp } from './app.js'
import { alipayBillPublishedAt } from './alipay.js'
import { alipayTill } from './alipay-till.js'
import { creemStatementReadyAt } from './creem.js'
import { creemTill } from './creem-till.js'
import { getSession, refundRecord } from './merchant-api.js'
import { liveWechat, wechatStatementPublishedAt } from './wechat.js'

/** A live session paid through the fake. `ref` names its statement line to the knobs. */
export interface Paid {
  recordId: string
  attemptId: string
  amount: number
  currency: string
  ref: string
}

/** A refund completed at the fake (succeeded in Till). `ref` names its statement line to the knobs. */
export interface Refunded {
  refundId: string
  amount: number
  ref: string
}

export interface ReconSubject {
  ta: TestApp
  provider: string
  configId: string
  zone: string
  /** The fake's statement knobs (fake-kit/statement-knobs.ts) and clock skew. */
  ctl: ReturnType<typeof statementKnobCalls> & { clockSkew(seconds: number): Promise<unknown> }
  /** When the fake serves `day`'s statement. */
  readyAt(day: string): Date
  pay(amount?: number): Promise<Paid>
  /** A refund of `amount` (all that is left when omitted), completed at the fake. */
  refund(p: Paid, amount?: number): Promise<Refunded>
  /**
   * A refund whose line the knobs make say the other outcome than Till's; answers Till's refund id.
   * None where the statement lists only refunds made (Alipay's trade bill has no refund status).
   */
  statusDiffers?(day: string, p: Paid): Promise<string>
  /** A currency the statement's format can write other than the sessions' own; null where it names none (Alipay: CNY only). */
  otherCurrency: string | null
  /** What a run of a held day says (not published yet, in the provider's words). */
  heldReason: RegExp
  /** What a run of a corrupted download says: the check that refused it (a hash, a count, a zip's CRC). */
  corruptReason: RegExp
  /** The statement has a summary of its own, so its totals can agree (WeChat Pay Global's and Creem's have none). */
  summary: boolean
  /**
   * A held statement answers "not published yet". Creem has no statement to wait for: a held day (its
   * transactions listed late) reads as a day without business, and the day run again reads it again.
   */
  holdWaits: boolean
  /**
   * The fake's clock can put a refund made just before midnight on the next day's statement. Not
   * Creem's: it states refunds on their payment's day, so a late refund there is one made after the
   * day was read (the case of a refund made the next day).
   */
  lateRefund: boolean
  /** The statement lists a refund on its payment's day, however late it was made (Creem), not on the refund's own day (WeChat). */
  refundsOnPaymentDay: boolean
  /** What Till cannot reconcile yet for this provider, and why: the cases that need it run as todos. */
  gaps: Partial<Record<ReconGap, string>>
}

/** `refunds`: its refund lines pair with Till's refunds; `relisting`: a day read again after the provider lists more. */
export type ReconGap = 'refunds' | 'relisting'

export interface ReconDriver {
  name: string
  start(t: TestContext, at: Date): Promise<ReconSubject>
}

/** The time `hh:mm` on `day` in `zone`, for the zones the drivers use. */
export function timeOn(day: string, hhmm: string, zone: string): Date {
  const offset = { 'Asia/Shanghai': '+08:00', UTC: 'Z' }[zone]
  if (!offset) throw new Error(`no offset known for ${zone}`)
  return new Date(`${day}T${hhmm}:00${offset}`)
}

/** The next day whose noon (provider's zone) is still ahead, the clock set to it: each case gets a day of its own. */
export function beginDay(s: ReconSubject): string {
  let day = dayIn(s.ta.clock(), s.zone)
  if (s.ta.clock() >= timeOn(day, '12:00', s.zone)) day = addDays(day, 1)
  s.ta.clock.set(timeOn(day, '12:00', s.zone))
  return day
}

function wechatDriver(name: string, currency: string, crossBorder?: string): ReconDriver {
  return {
    name,
    async start(t, at) {
      const w = await liveWechat(t, { crossBorder, at })
      const key = w.ta.merchant.liveKey
      const refund = async (p: Paid, amount?: number): Promise<Refunded> => {
        w.ta.clock.advance(60_000)
        const res = await refundRecord(w.ta, p.recordId, amount, key)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        await w.ctl.tick()
        const r = res.body.refund
        assert.equal((await w.ta.database.pool.query('select status from refunds where id = $1', [r.id])).rows[0].status, 'succeeded')
        return { refundId: r.id, amount: r.amount, ref: r.id }
      }
      return {
        ta: w.ta, provider: 'wechat', configId: w.configId, zone: 'Asia/Shanghai', ctl: w.ctl,
        readyAt: (day) => new Date(wechatStatementPublishedAt(day).getTime() + 30 * 60_000),
        async pay(amount = 9900) {
          w.ta.clock.advance(60_000)
          const s = await w.session({ amount, currency })
          const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
          await w.ctl.pay({ out_trade_no: attempt.id })
          const record = (await getSession(w.ta, s.id, key)).body.record
          assert.equal(record?.status, 'paid')
          return { recordId: record.id, attemptId: attempt.id, amount, currency, ref: attempt.id }
        },
        refund,
        async statusDiffers(day, p) {
          const r = await refund(p, 1000)
          await w.ctl.statementRefundStatus(day, r.ref, 'REFUNDCLOSE')
          return r.refundId
        },
        otherCurrency: 'USD',
        heldReason: /creating/,
        corruptReason: /SHA1/,
        summary: !crossBorder,
        holdWaits: true,
        lateRefund: true,
        refundsOnPaymentDay: false,
        gaps: {},
      }
    },
  }
}

const creemDriver: ReconDriver = {
  name: 'Creem',
  async start(t, at) {
    const c = await creemTill(t, {}, { at })
    const checkouts = new Map<string, string>()
    const transactionOf = async (p: Paid) => (await c.ctl.checkout(checkouts.get(p.attemptId)!)).order.transaction as string
    const settled = async (recordId: string, before: Set<string>): Promise<Refunded> => {
      const rows = await c.query('select id, amount, status from refunds where record_id = $1 order by created_at, id', [recordId])
      const made = rows.filter((r) => !before.has(r.id))
      assert.equal(made.length, 1, JSON.stringify(rows))
      return { refundId: made[0].id, amount: Number(made[0].amount), ref: '' }
    }
    const refundIds = async (recordId: string) => new Set((await c.query('select id from refunds where record_id = $1', [recordId])).map((r) => r.id as string))
    return {
      ta: c.ta, provider: 'creem', configId: c.configId, zone: 'UTC', ctl: c.ctl,
      readyAt: (day) => creemStatementReadyAt(day),
      async pay(amount = 1234) {
        c.ta.clock.advance(60_000)
        const id = await c.session({ amount })
        const { attempt } = await c.start(id)
        checkouts.set(attempt.id, attempt.providerRef!)
        await c.ctl.complete(attempt.providerRef!)
        const record = (await c.read(id)).record
        assert.equal(record?.status, 'paid')
        return { recordId: record.id, attemptId: attempt.id, amount, currency: 'EUR', ref: attempt.id }
      },
      // Creem's API refunds only all that is left; a part is refunded in its dashboard. Its statement
      // shows a transaction's refunds as one line, named like the payment.
      async refund(p, amount) {
        c.ta.clock.advance(60_000)
        const before = await refundIds(p.recordId)
        if (amount === undefined) {
          const res = await c.refund(p.recordId)
          assert.equal(res.status, 200, JSON.stringify(res.body))
          await c.ctl.tick()
        } else {
          await c.ctl.dashboardRefund(await transactionOf(p), amount)
        }
        return { ...(await settled(p.recordId, before)), ref: p.ref }
      },
      async statusDiffers(day, p) {
        c.ta.clock.advance(60_000)
        await c.ctl.refundOutcome({ status: 'failed' })
        const res = await c.refund(p.recordId)
        await c.ctl.tick()
        assert.equal((await c.query('select status from refunds where id = $1', [res.body.refund.id]))[0].status, 'failed')
        await c.ctl.statementRefundStatus(day, p.ref, 'refunded')
        return res.body.refund.id as string
      },
      otherCurrency: 'USD',
      heldReason: /creating/,
      corruptReason: /count/,
      summary: false,
      holdWaits: false,
      lateRefund: false,
      refundsOnPaymentDay: true,
      gaps: {},
    }
  },
}

const alipayDriver: ReconDriver = {
  name: 'Alipay',
  async start(t, at) {
    const a = await alipayTill(t, { at })
    return {
      ta: a.ta, provider: 'alipay', configId: a.configId, zone: 'Asia/Shanghai', ctl: a.ctl,
      readyAt: (day) => new Date(alipayBillPublishedAt(day).getTime() + 30 * 60_000),
      async pay(amount = 8888) {
        a.ta.clock.advance(60_000)
        const p = await a.paid({ amount })
        return { recordId: p.recordId, attemptId: p.attemptId, amount, currency: 'CNY', ref: p.attemptId }
      },
      // Alipay answers a refund at once: succeeded, no notification to wait for.
      async refund(p, amount) {
        a.ta.clock.advance(60_000)
        const res = await a.refund(p.recordId, amount)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        const r = res.body.refund
        assert.equal(r.status, 'succeeded')
        return { refundId: r.id, amount: r.amount, ref: r.id }
      },
      otherCurrency: null,
      heldReason: /has not made/,
      corruptReason: /zip is damaged/,
      summary: true,
      holdWaits: true,
      lateRefund: true,
      refundsOnPaymentDay: false,
      gaps: {},
    }
  },
}

/** Every provider whose fake serves statements. */
export const RECON_DRIVERS: ReconDriver[] = [
  wechatDriver('WeChat Pay (mainland)', 'CNY'),
  wechatDriver('WeChat Pay Global', 'HKD', 'HKD'),
  creemDriver,
  alipayDriver,
]
