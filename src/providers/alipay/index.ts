/**
 * The Alipay adapter (mainland, OpenAPI v2 gateway): plumbing only. Wire shapes and status maps
 * are in wire.ts, signatures in sign.ts, keys in keys.ts, the signed client in http.ts. Our attempt
 * id is the out_trade_no and our refund id the out_request_no, so every retry is the same order or
 * the same refund at Alipay, which refunds once per out_request_no.
 */
import type { Dispatcher } from 'undici'
import type { NotificationResult, PaymentProvider, ProviderConfig, RefundState } from '../types.js'
import { ProviderError } from '../types.js'
import { checkAbout } from '../answers.js'
import { toDecimalText } from '../../domain/money.js'
import { ACK_FAIL, ACK_SUCCESS, CHANNELS, METHODS, REFUND_QUERY_SETTLE_MS, type AlipayChannel } from './constants.js'
import { AlipayClient } from './http.js'
import { credentialsOf, keysOf } from './keys.js'
import { verifyNotification } from './sign.js'
import type { StatementLimits } from '../limits.js'
import { alipayStatements } from './statements.js'
import {
  amountInFen, orderContent, paymentFactFromNotice, paymentState, type NoticeForm, type PrecreateAnswer, type RefundAnswer, type RefundQueryAnswer, type TradeAnswer,
} from './wire.js'

export interface AlipayProviderOptions {
  now?: () => Date
  timeoutMs?: number
  dispatcher?: Dispatcher
  /** What a statement may hold and how long its download may take (limits.ts; TILL_STATEMENT_* settings). */
  statementLimits?: StatementLimits
}

const reply = (status: number, body: string) => ({ status, body, headers: { 'content-type': 'text/plain; charset=utf-8' } })
const refuse = (status: number, reason: string): NotificationResult => ({ ack: reply(status, ACK_FAIL), facts: [{ kind: 'ignored', reason }] })
const accept = (facts: NotificationResult['facts']): NotificationResult => ({ ack: reply(200, ACK_SUCCESS), facts })

/** A form body (notification) or query (return) as plain fields, values decoded. */
const fieldsOf = (params: URLSearchParams): NoticeForm => Object.fromEntries(params.entries())

const pageMethod = { page: METHODS.pagePay, wap: METHODS.wapPay } as const

/**
 * Who sent a notification or a return to the relay: Alipay for this configuration's application (and
 * its seller, when settings.sellerId names one), Alipay for another app or seller, or not Alipay.
 */
function senderOf(cfg: ProviderConfig, fields: NoticeForm): 'ours' | 'another_app' | 'another_seller' | 'unverified' {
  let verified = false
  try {
    verified = verifyNotification(fields, keysOf(credentialsOf(cfg)).alipayPublicKey)
  } catch {
    // Unreadable keys verify nothing.
  }
  if (!verified) return 'unverified'
  if (fields.app_id !== credentialsOf(cfg).appId) return 'another_app'
  const seller = cfg.settings.sellerId
  return typeof seller === 'string' && fields.seller_id !== seller ? 'another_seller' : 'ours'
}

export function createAlipayProvider(opts: AlipayProviderOptions = {}): PaymentProvider & { client: AlipayClient } {
  const now = opts.now ?? (() => new Date())
  const client = new AlipayClient({ now, timeoutMs: opts.timeoutMs ?? 10_000, dispatcher: opts.dispatcher })

  /** The trade behind an attempt; ACQ.TRADE_NOT_EXIST until the buyer scans the code or logs in on the cashier. */
  async function trade(cfg: ProviderConfig, outTradeNo: string): Promise<TradeAnswer | null> {
    try {
      return await client.call<TradeAnswer>(cfg, METHODS.query, { out_trade_no: outTradeNo }, {}, ['out_trade_no'])
    } catch (e) {
      if (e instanceof ProviderError && e.code === 'ACQ.TRADE_NOT_EXIST') return null
      throw e
    }
  }

  /**
   * fastpay.refund.query: REFUND_SUCCESS is done; anything else is not (yet) a refund. An answer
   * naming another out_request_no or out_trade_no is neither (client.call: unknown).
   */
  async function refundQuery(cfg: ProviderConfig, outTradeNo: string, refundId: string, amount: number): Promise<RefundState | null> {
    const r = await client.call<RefundQueryAnswer>(cfg, METHODS.refundQuery, { out_trade_no: outTradeNo, out_request_no: refundId })
    if (r.refund_status !== 'REFUND_SUCCESS') return null
    // Alipay names the refund it found; a success naming none cannot be tied to this one.
    checkAbout('Alipay', METHODS.refundQuery, { out_request_no: refundId }, r, ['out_request_no'])
    if (r.refund_amount !== undefined && amountInFen(r.refund_amount) !== amount) {
      throw new ProviderError('unknown', 'refund_amount_mismatch', `Alipay shows refund ${refundId} of ${r.refund_amount} yuan, not ${toDecimalText(amount, 'CNY')}`)
    }
    return { status: 'succeeded', currency: 'CNY' }
  }

  return {
    id: 'alipay',
    client,
    statements: alipayStatements(client, now, opts.statementLimits),

    async createAttempt(cfg, a) {
      const channel = (a.channel ?? 'precreate') as AlipayChannel
      if (!CHANNELS.includes(channel)) throw new ProviderError('rejected', 'unsupported_channel', `Alipay has no channel ${a.channel}`, false)
      const content = orderContent(channel, a)
      if (channel === 'precreate') {
        const r = await client.call<PrecreateAnswer>(cfg, METHODS.precreate, content, { notify_url: a.notifyUrl }, ['out_trade_no'])
        if (!r.qr_code) throw new ProviderError('unknown', 'malformed_response', 'Alipay answered the precreate without its qr_code')
        return { action: { kind: 'qr', content: r.qr_code }, data: { channel, qrCode: r.qr_code } }
      }
      // Nothing is sent: the customer's browser takes the signed request to Alipay's cashier.
      const url = client.pageUrl(cfg, pageMethod[channel], content, { notify_url: a.notifyUrl, return_url: a.returnUrl })
      return { action: { kind: 'redirect', url }, data: { channel } }
    },

    /**
     * The form's signature first (everything but sign and sign_type, sorted): a refusal answers
     * `fail`, so Alipay sends it again. Then the application, then the trade: TRADE_SUCCESS and
     * TRADE_FINISHED are a payment; TRADE_CLOSED and refund notices change nothing (reconciliation
     * and Till's own refund calls learn them by query). Everything verified is answered `success`;
     * duplicates are no-ops in applyFacts.
     */
    async parseNotification(cfg, raw) {
      const form = fieldsOf(new URLSearchParams(raw.body.toString('utf8')))
      const sender = senderOf(cfg, form)
      if (sender === 'unverified') return refuse(400, 'signature refused')
      // Another application's genuine notice at this URL was never ours: taken, so Alipay stops sending it.
      if (sender === 'another_app') return accept([{ kind: 'ignored', reason: `notification for app ${form.app_id ?? '(none)'}` }])
      if (sender === 'another_seller') return accept([{ kind: 'ignored', reason: `notification for seller ${form.seller_id ?? '(none)'}` }])
      const fact = paymentFactFromNotice(form)
      return accept([fact ?? { kind: 'ignored', reason: `${form.notify_type ?? 'notification'} ${form.trade_status ?? ''} for ${form.out_trade_no ?? '?'}`.trim() }])
    },

    async queryPayment(cfg, ref) {
      const t = await trade(cfg, ref.attemptId)
      // No trade yet: the buyer has not scanned the code or logged in on the cashier.
      return t ? paymentState(t) : { status: 'pending' }
    },

    /**
     * alipay.trade.close. ACQ.TRADE_NOT_EXIST is an order the buyer never opened: closed. Any other
     * refusal is followed by a query, so a trade paid meanwhile comes back as alreadyPaid.
     */
    async closePayment(cfg, ref) {
      try {
        await client.call(cfg, METHODS.close, { out_trade_no: ref.attemptId })
        return { closed: true }
      } catch (e) {
        if (!(e instanceof ProviderError) || e.outcome !== 'rejected') throw e
        if (e.code === 'ACQ.TRADE_NOT_EXIST') return { closed: true }
        const t = await trade(cfg, ref.attemptId)
        const state = t ? paymentState(t) : null
        if (state?.status === 'succeeded') {
          return { alreadyPaid: { kind: 'payment', attemptId: ref.attemptId, status: 'succeeded', providerRef: state.providerRef, amount: state.amount, currency: state.currency, paidAt: state.paidAt } }
        }
        if (state?.status === 'closed') return { closed: true }
        throw e
      }
    },

    /**
     * alipay.trade.refund with out_request_no = our refund id, the same on every retry. 10000 with
     * fund_change Y moved the money; N means nothing moved now (a repeat of a refund already made),
     * so the refund query says whether it exists.
     */
    async refund(cfg, r) {
      if (r.currency !== 'CNY') throw new ProviderError('rejected', 'unsupported_currency', `Alipay refunds CNY only, not ${r.currency}`, false)
      if (r.amount > r.totalAmount) throw new ProviderError('rejected', 'amount_exceeds_payment', 'refund larger than the payment', false)
      const outTradeNo = r.payment.attemptId
      const content: Record<string, string> = { out_trade_no: outTradeNo, refund_amount: toDecimalText(r.amount, 'CNY'), out_request_no: r.refundId }
      if (r.reason) content.refund_reason = Array.from(r.reason).slice(0, 256).join('')
      const answer = await client.call<RefundAnswer>(cfg, METHODS.refund, content, {}, ['out_trade_no'])
      if (answer.fund_change === 'Y') return { status: 'succeeded', currency: 'CNY' }
      return (await refundQuery(cfg, outTradeNo, r.refundId, r.amount)) ?? { status: 'pending' }
    },

    /**
     * No REFUND_SUCCESS means Alipay never received the refund or refused it: no money moved, and
     * asking again with the same out_request_no refunds at most once, so it is `not_found` (sent
     * again). Alipay may not show a refund asked for seconds ago: until then, an unknown outcome.
     */
    async queryRefund(cfg, ref) {
      const found = await refundQuery(cfg, ref.payment.attemptId, ref.refundId, ref.amount)
      if (found) return found
      if (now().getTime() - ref.createdAt.getTime() < REFUND_QUERY_SETTLE_MS) {
        throw new ProviderError('unknown', 'refund_not_visible_yet', `Alipay shows no refund ${ref.refundId} yet; asking again later`)
      }
      throw new ProviderError('unknown', 'not_found', `Alipay has no refund ${ref.refundId}`)
    },

    /** The signed parameters Alipay appends to return_url: a hint naming the attempt, checked like a notification. */
    verifyReturn(cfg, query) {
      const params = fieldsOf(query)
      const sender = senderOf(cfg, params)
      if (sender === 'ours') return { verified: true, attemptId: params.out_trade_no ?? null }
      const why = { unverified: 'signature refused', another_app: `for app ${params.app_id ?? '(none)'}`, another_seller: `for seller ${params.seller_id ?? '(none)'}` }[sender]
      return { verified: false, reason: `return ${why}` }
    },
  }
}
