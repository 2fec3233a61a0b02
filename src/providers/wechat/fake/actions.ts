/** What a customer or WeChat itself does to orders and refunds: pay, fail, expire, settle a refund. */
import { randomAlnum } from './crypto.js'
import type { Notifier } from './notify.js'
import type { FakeStore, Order, RefundRecord } from './store.js'
import { cnyFen, RATE_SCALE } from './views.js'

export interface PayOptions {
  openid?: string
  bankType?: string
}

export type PayResult = { ok: true; order: Order } | { ok: false; reason: string }

/** NOTPAY → SUCCESS, then TRANSACTION.SUCCESS (awaited, so a test sees its effect when this returns). */
export async function payOrder(store: FakeStore, notifier: Notifier, o: Order, opts: PayOptions = {}): Promise<PayResult> {
  const current = store.order(o.mchId, o.outTradeNo)!
  if (current.state !== 'NOTPAY') return { ok: false, reason: `order is ${current.state}` }
  current.state = 'SUCCESS'
  current.transactionId = store.newTransactionId()
  current.successTimeMs = store.nowMs()
  current.payerOpenid = opts.openid ?? current.openid ?? `o${randomAlnum(27)}`
  current.bankType = opts.bankType ?? 'OTHERS'
  if (current.service === 'cross_border') {
    // The payer is charged in CNY at the day's rate for the listed currency (the rates knob).
    current.rate = Math.round((store.knobs.rates[current.currency] ?? 1) * RATE_SCALE)
    current.payerTotal = cnyFen(current.total, current.currency, current.rate)
  }
  await notifier.paymentSucceeded(current)
  return { ok: true, order: current }
}

/** A failed try (wrong password, card declined): the order stays NOTPAY and nothing is sent. */
export function failOrder(store: FakeStore, o: Order): PayResult {
  const current = store.order(o.mchId, o.outTradeNo)!
  if (current.state !== 'NOTPAY') return { ok: false, reason: `order is ${current.state}` }
  current.failedTries++
  return { ok: true, order: current }
}

/** time_expire passing: an unpaid order closes. */
export function expireOrder(store: FakeStore, o: Order): PayResult {
  const current = store.order(o.mchId, o.outTradeNo)!
  if (current.state !== 'NOTPAY') return { ok: false, reason: `order is ${current.state}` }
  current.state = 'CLOSED'
  current.expiresAtMs = Math.min(current.expiresAtMs, store.nowMs())
  return { ok: true, order: current }
}

/** PROCESSING → the chosen outcome. True only for the call that made the transition. */
export function settleRefund(store: FakeStore, r: RefundRecord): boolean {
  if (r.status !== 'PROCESSING') return false
  r.status = r.outcome
  if (r.outcome === 'SUCCESS') r.successTimeMs = store.nowMs()
  return true
}
