/**
 * What the buyer and Alipay itself do to a trade: scanning or logging in creates it, paying,
 * failing, expiring, closing and finishing change it. Alipay notifies every change but the
 * creation (TRADE_SUCCESS, TRADE_CLOSED, TRADE_FINISHED).
 */
import type { Notifier } from './notify.js'
import { randomAlnum, randomDigits, type FakeStore, type Trade } from './store.js'

export type ActionResult = { ok: true; trade: Trade } | { ok: false; reason: string }

const fail = (reason: string): ActionResult => ({ ok: false, reason })

/**
 * An unpaid order past its expiry: a created trade closes (and Alipay notifies it); an order never
 * scanned just cannot be paid any more. Called before any read, so the state is right without a tick.
 */
export function expireIfDue(store: FakeStore, notifier: Notifier, t: Trade) {
  if (t.status !== 'WAIT_BUYER_PAY' || store.nowMs() < t.expiresAtMs) return
  t.status = 'TRADE_CLOSED'
  t.gmtCloseMs = t.expiresAtMs
  if (t.exists && store.knobs.notifyRefundsAndClosings) store.jobs.schedule(0, () => notifier.send(t, 'closed'))
}

/** The buyer scans the code or logs in on the cashier: the trade exists from now on (WAIT_BUYER_PAY). */
export function createTrade(store: FakeStore, notifier: Notifier, t: Trade): ActionResult {
  expireIfDue(store, notifier, t)
  if (t.exists) return { ok: true, trade: t }
  if (t.status !== 'WAIT_BUYER_PAY') return fail('the order has expired')
  t.exists = true
  t.tradeNo = store.newTradeNo()
  t.gmtCreateMs = store.nowMs()
  t.buyerId = `2088${randomDigits(12)}`
  t.buyerLogonId = `${randomAlnum(3).toLowerCase()}***@alipay.test`
  // Expiry at its time, even if nothing reads the trade then.
  store.jobs.schedule(Math.max(0, t.expiresAtMs - store.nowMs()), async () => expireIfDue(store, notifier, t))
  return { ok: true, trade: t }
}

/** WAIT_BUYER_PAY → TRADE_SUCCESS, then the notification (awaited, so a test sees its effect when this returns). */
export async function payTrade(store: FakeStore, notifier: Notifier, t: Trade): Promise<ActionResult> {
  const created = createTrade(store, notifier, t)
  if (!created.ok) return created
  if (t.status !== 'WAIT_BUYER_PAY') return fail(`the trade is ${t.status}`)
  t.status = 'TRADE_SUCCESS'
  t.gmtPaymentMs = store.nowMs()
  await notifier.send(t, 'payment')
  return { ok: true, trade: t }
}

/** A failed try on the cashier (wrong password): the buyer had logged in, so the trade exists, unpaid. */
export function failTrade(store: FakeStore, notifier: Notifier, t: Trade): ActionResult {
  const created = createTrade(store, notifier, t)
  if (!created.ok) return created
  if (t.status !== 'WAIT_BUYER_PAY') return fail(`the trade is ${t.status}`)
  t.failedTries++
  return { ok: true, trade: t }
}

/** The order's time runs out now. */
export function expireTrade(store: FakeStore, notifier: Notifier, t: Trade): ActionResult {
  expireIfDue(store, notifier, t)
  if (t.status !== 'WAIT_BUYER_PAY') return fail(`the trade is ${t.status}`)
  t.expiresAtMs = store.nowMs()
  expireIfDue(store, notifier, t)
  return { ok: true, trade: t }
}

/** alipay.trade.close's effect, and its TRADE_CLOSED notification to the close request's notify_url or the order's. */
export function closeTrade(store: FakeStore, notifier: Notifier, t: Trade, notifyUrl?: string) {
  t.status = 'TRADE_CLOSED'
  t.gmtCloseMs = store.nowMs()
  if (store.knobs.notifyRefundsAndClosings) store.jobs.schedule(0, () => notifier.send(t, 'closed', notifyUrl ?? t.notifyUrl))
}

/** The refund period is over: TRADE_SUCCESS → TRADE_FINISHED, notified. */
export async function finishTrade(store: FakeStore, notifier: Notifier, t: Trade): Promise<ActionResult> {
  if (t.status !== 'TRADE_SUCCESS') return fail(`the trade is ${t.status}`)
  t.status = 'TRADE_FINISHED'
  await notifier.send(t, 'finished')
  return { ok: true, trade: t }
}
