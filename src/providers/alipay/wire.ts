/**
 * Alipay's wire shapes and their pure conversions into Till's facts (docs/providers.md#alipay-alipay).
 * No I/O. Field names follow the official Java SDK's AlipayTrade*Model and *Response classes;
 * every answer field is optional on read. Amounts are yuan strings converted exactly (money.ts).
 */
import { fromDecimalText, toDecimalText } from '../../domain/money.js'
import type { AttemptInput, PaymentFact, PaymentState } from '../types.js'
import { ProviderError } from '../types.js'
import { CODE_SUCCESS, CODE_UNAVAILABLE, PRODUCT_CODES, type AlipayChannel } from './constants.js'

/** The fields every answer carries (公共响应参数). */
export interface Answer {
  code?: string
  msg?: string
  sub_code?: string
  sub_msg?: string
}

export interface TradeAnswer extends Answer {
  trade_no?: string
  out_trade_no?: string
  trade_status?: string
  total_amount?: string
  trans_currency?: string
  send_pay_date?: string
}

export interface PrecreateAnswer extends Answer {
  out_trade_no?: string
  qr_code?: string
}

export interface RefundAnswer extends Answer {
  trade_no?: string
  out_trade_no?: string
  fund_change?: string
  refund_fee?: string
  refund_currency?: string
}

export interface RefundQueryAnswer extends Answer {
  trade_no?: string
  out_trade_no?: string
  out_request_no?: string
  refund_amount?: string
  refund_status?: string
}

/** Our attempt and refund ids fit out_trade_no and out_request_no: 64 letters, digits or underscores. */
export const isValidOutNo = (s: string) => /^[0-9A-Za-z_]{1,64}$/.test(s)

const pad = (n: number) => String(n).padStart(2, '0')

/** `yyyy-MM-dd HH:mm:ss` in Beijing time, whole seconds rounded down (timestamp, time_expire). */
export function beijingTime(d: Date): string {
  const b = new Date(Math.floor(d.getTime() / 1000) * 1000 + 8 * 3600_000)
  return `${b.getUTCFullYear()}-${pad(b.getUTCMonth() + 1)}-${pad(b.getUTCDate())} ${pad(b.getUTCHours())}:${pad(b.getUTCMinutes())}:${pad(b.getUTCSeconds())}`
}

export function parseBeijingTime(s: string | undefined): Date | undefined {
  const m = s ? /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s) : null
  if (!m) return undefined
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}+08:00`)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export const SUBJECT_MAX = 256

/** The order title: the session's description (Alipay forbids `/`, `=` and `&` in it), or a fallback naming the session. */
export function orderSubject(description: string | null, sessionId: string): string {
  const text = (description ?? '').replace(/[/=&]/g, ' ').replace(/\s+/g, ' ').trim() || `Payment ${sessionId}`
  return Array.from(text).slice(0, SUBJECT_MAX).join('')
}

/** The biz_content of an order on one channel. Throws `rejected` for what Alipay would refuse, before any call. */
export function orderContent(channel: AlipayChannel, a: AttemptInput): Record<string, string> {
  if (a.currency !== 'CNY') throw new ProviderError('rejected', 'unsupported_currency', `Alipay takes CNY only, not ${a.currency}`, false)
  if (!isValidOutNo(a.attemptId)) throw new ProviderError('rejected', 'invalid_out_trade_no', `${a.attemptId} is not a valid out_trade_no`, false)
  return {
    out_trade_no: a.attemptId,
    total_amount: toDecimalText(a.amount, 'CNY'),
    subject: orderSubject(a.description, a.sessionId),
    product_code: PRODUCT_CODES[channel],
    // The order never outlives the session: Alipay closes it unpaid at this time.
    time_expire: beijingTime(a.expiresAt),
    // The mobile cashier's way out unpaid: back to the checkout page to choose again.
    ...(channel === 'wap' ? { quit_url: a.checkoutUrl } : {}),
  }
}

const PAID = ['TRADE_SUCCESS', 'TRADE_FINISHED']

/** What an amount text says in fen; undefined when malformed, which the core refuses to take as paid. */
export const amountInFen = (text: string | undefined) => (text === undefined ? undefined : fromDecimalText(text, 'CNY') ?? undefined)

/**
 * trade_status → attempt status. TRADE_FINISHED is paid and no longer refundable; TRADE_CLOSED is
 * an unpaid order closed (or a paid one refunded in full, which Till learns of by its own refunds).
 * A mainland trade names no currency unless it was priced in another (trans_currency): CNY.
 */
export function paymentState(t: TradeAnswer): PaymentState {
  if (t.trade_status && PAID.includes(t.trade_status)) {
    return { status: 'succeeded', providerRef: t.trade_no, amount: amountInFen(t.total_amount), currency: t.trans_currency ?? 'CNY', paidAt: parseBeijingTime(t.send_pay_date) }
  }
  if (t.trade_status === 'TRADE_CLOSED') return { status: 'closed' }
  // WAIT_BUYER_PAY and anything new: ask again.
  return { status: 'pending' }
}

/** An async notification's form (notify_type trade_status_sync). */
export type NoticeForm = Record<string, string | undefined>

/** A paid trade's notification as a payment fact, or null when it does not report a payment. */
export function paymentFactFromNotice(n: NoticeForm): PaymentFact | null {
  if (!n.out_trade_no || !n.trade_status || !PAID.includes(n.trade_status)) return null
  return {
    kind: 'payment',
    attemptId: n.out_trade_no,
    status: 'succeeded',
    providerRef: n.trade_no,
    amount: amountInFen(n.total_amount),
    currency: n.trans_currency ?? 'CNY',
    paidAt: parseBeijingTime(n.gmt_payment),
  }
}

/**
 * An answer whose code is not 10000 as a ProviderError. 20000 (service unavailable), isp.* (Alipay's
 * own faults) and SYSTEM_ERROR may or may not have been acted on: `unknown`, and our ids make the
 * retry safe. Everything else (ACQ.* business refusals, isv.* request faults) was refused: `rejected`,
 * named by Alipay's sub_code and explained by its sub_msg.
 */
export function answerError(method: string, a: Answer): ProviderError {
  const code = a.sub_code || a.code || 'no_code'
  const message = `Alipay ${method} ${a.code ?? '?'} ${a.msg ?? ''}${a.sub_code ? `: ${a.sub_code}` : ''}${a.sub_msg ? ` ${a.sub_msg}` : ''}`.replace(/ +/g, ' ').trim()
  const uncertain = a.code === CODE_UNAVAILABLE || !a.code || /^isp\./.test(a.sub_code ?? '') || /SYSTEM_ERROR$/.test(a.sub_code ?? '')
  return uncertain ? new ProviderError('unknown', code, message) : new ProviderError('rejected', code, message, false)
}

export const isSuccess = (a: Answer) => a.code === CODE_SUCCESS

/** The ids a request names that its answer repeats (checkAbout, ../answers.ts). */
export const ANSWER_IDS = ['out_trade_no', 'out_request_no'] as const
export type AnswerId = (typeof ANSWER_IDS)[number]

/** The request's ids that its answer must not contradict. */
export const askedIds = (biz: Record<string, unknown>) => Object.fromEntries(ANSWER_IDS.map((id) => [id, biz[id]]))
