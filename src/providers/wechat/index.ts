/**
 * The WeChat Pay v3 adapter (direct merchant): plumbing only. Wire shapes and status maps are in
 * wire.ts, cryptography in sign.ts, the signed client in http.ts. Our attempt id is the
 * out_trade_no and our refund id the out_refund_no, so every retry is idempotent at WeChat.
 */
import type { Dispatcher } from 'undici'
import type { NotificationResult, PaymentProvider, ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { checkAbout, refundIds } from '../answers.js'
import { CHANNELS, FAIL_BODY, PATHS, type WechatChannel } from './constants.js'
import { closeOrConfirm } from './close.js'
import { globalOps } from './global.js'
import { globalPaymentFact, globalRefundFact } from './global-wire.js'
import { credentialsOf, isCrossBorder, WechatClient } from './http.js'
import { fetchOpenid } from './oauth.js'
import { decryptResource, jsapiParams, privateKeyOf } from './sign.js'
import type { StatementLimits } from '../limits.js'
import { wechatStatements } from './statements.js'
import {
  h5RedirectUrl, orderRequest, paymentFact, paymentState, refundFact, refundState,
  type NotificationEnvelope, type Refund, type RefundNotice, type RefundRequest, type Transaction,
} from './wire.js'

export interface WechatProviderOptions {
  now?: () => Date
  timeoutMs?: number
  dispatcher?: Dispatcher
  /** Statements as gzip (the default) or plain files. */
  statementGzip?: boolean
  /** What a statement may hold and how long its download may take (limits.ts; TILL_STATEMENT_* settings). */
  statementLimits?: StatementLimits
}

const refuse = (status: number, reason: string): NotificationResult => ({ ack: { status, body: FAIL_BODY }, facts: [{ kind: 'ignored', reason }] })
const accept = (facts: NotificationResult['facts']): NotificationResult => ({ ack: { status: 204 }, facts })

const outTradeNoPath = (outTradeNo: string) => `${PATHS.byOutTradeNo}${encodeURIComponent(outTradeNo)}`

export function createWechatProvider(opts: WechatProviderOptions = {}): PaymentProvider & { client: WechatClient } {
  const now = opts.now ?? (() => new Date())
  const timeoutMs = opts.timeoutMs ?? 10_000
  const client = new WechatClient({ now, timeoutMs, dispatcher: opts.dispatcher })
  // A cross-border configuration (settings.service) speaks WeChat Pay Global: global.ts.
  const global = globalOps(client, now)

  async function query(cfg: ProviderConfig, outTradeNo: string): Promise<Transaction | null> {
    const c = credentialsOf(cfg)
    try {
      const t = (await client.call<Transaction>(cfg, 'GET', `${outTradeNoPath(outTradeNo)}?mchid=${encodeURIComponent(c.mchId)}`)).data
      checkAbout('WeChat Pay', 'the order query', { out_trade_no: outTradeNo, mchid: c.mchId }, t, ['out_trade_no'])
      return t
    } catch (e) {
      // An order WeChat never heard of can never be paid: report it as closed, not as an error forever.
      if (e instanceof ProviderError && e.code === 'ORDER_NOT_EXIST') return { out_trade_no: outTradeNo, trade_state: 'CLOSED' }
      throw e
    }
  }

  return {
    id: 'wechat',
    client,

    async createAttempt(cfg, a) {
      const channel = (a.channel ?? 'native') as WechatChannel
      if (!CHANNELS.includes(channel)) throw new ProviderError('rejected', 'unsupported_channel', `WeChat Pay has no channel ${a.channel}`, false)
      if (isCrossBorder(cfg)) return global.createAttempt(cfg, channel, a)
      const c = credentialsOf(cfg)
      const body = orderRequest(channel, { mchId: c.mchId, appId: c.appId }, a)
      const res = await client.call<{ code_url?: string; h5_url?: string; prepay_id?: string }>(cfg, 'POST', PATHS[channel], body)
      const d = res.data ?? {}
      if (channel === 'native' && d.code_url) return { action: { kind: 'qr', content: d.code_url }, data: { channel, codeUrl: d.code_url } }
      if (channel === 'h5' && d.h5_url) return { action: { kind: 'redirect', url: h5RedirectUrl(d.h5_url, a.returnUrl) }, data: { channel } }
      if (channel === 'jsapi' && d.prepay_id) {
        const params = jsapiParams(privateKeyOf(c.privateKey), c.appId, d.prepay_id, now())
        return { action: { kind: 'in_app', params: { ...params } }, data: { channel, prepayId: d.prepay_id } }
      }
      throw new ProviderError('unknown', 'malformed_response', `WeChat Pay answered ${channel} without its payment artefact`)
    },

    /**
     * Signature over the raw bytes first (a probe, stale timestamp, unknown serial or tampered body
     * is refused with 4xx so WeChat redelivers the genuine one), then decryption, then facts.
     * Duplicates are acknowledged like the first delivery; applyFacts makes them no-ops.
     */
    async parseNotification(cfg, raw) {
      const text = raw.body.toString('utf8')
      const check = await client.verify(cfg, raw.headers, text)
      if (!check.ok) return refuse(401, `signature refused: ${check.reason}`)
      let envelope: NotificationEnvelope
      let plain: Transaction & RefundNotice & { id?: string }
      try {
        envelope = JSON.parse(text) as NotificationEnvelope
        const r = envelope.resource
        if (!r?.ciphertext || r.nonce === undefined) return refuse(400, 'no encrypted resource')
        plain = JSON.parse(decryptResource(credentialsOf(cfg).apiV3Key, { nonce: r.nonce, associated_data: r.associated_data, ciphertext: r.ciphertext }))
      } catch {
        // Signed by WeChat but unreadable with our APIv3 key: refuse, so it comes back once the key is fixed.
        return refuse(400, 'resource could not be decrypted')
      }
      const c = credentialsOf(cfg)
      if (plain.mchid !== undefined && plain.mchid !== c.mchId) return accept([{ kind: 'ignored', reason: `notification for merchant ${plain.mchid}` }])
      const type = envelope.event_type ?? ''
      if (type === 'TRANSACTION.SUCCESS') {
        if (plain.appid !== undefined && plain.appid !== c.appId) return accept([{ kind: 'ignored', reason: `notification for appid ${plain.appid}` }])
        const fact = isCrossBorder(cfg) ? globalPaymentFact(plain) : paymentFact(plain)
        return accept(fact.attemptId && fact.status === 'succeeded' ? [fact] : [{ kind: 'ignored', reason: `trade_state ${plain.trade_state}` }])
      }
      if (type.startsWith('REFUND.')) return accept([isCrossBorder(cfg) ? globalRefundFact(plain) : refundFact(plain)])
      return accept([{ kind: 'ignored', reason: `event ${type}` }])
    },

    async queryPayment(cfg, ref) {
      if (isCrossBorder(cfg)) return global.queryPayment(cfg, ref)
      const t = await query(cfg, ref.attemptId)
      return paymentState(t ?? {})
    },

    async closePayment(cfg, ref) {
      if (isCrossBorder(cfg)) return global.closePayment(cfg, ref)
      return closeOrConfirm(client, cfg, `${outTradeNoPath(ref.attemptId)}/close`, ref, async () => {
        const t = (await query(cfg, ref.attemptId)) ?? {}
        return { state: paymentState(t), fact: () => paymentFact(t) }
      })
    },

    async refund(cfg, r) {
      if (isCrossBorder(cfg)) return global.refund(cfg, r)
      if (r.currency !== 'CNY') throw new ProviderError('rejected', 'unsupported_currency', `WeChat Pay refunds CNY only, not ${r.currency}`, false)
      const body: RefundRequest = {
        ...(r.payment.attemptId ? { out_trade_no: r.payment.attemptId } : { transaction_id: r.payment.providerRef ?? '' }),
        out_refund_no: r.refundId,
        notify_url: r.notifyUrl,
        amount: { refund: r.amount, total: r.totalAmount, currency: 'CNY' },
      }
      // Shown to the payer; 80 characters is the documented limit.
      if (r.reason) body.reason = Array.from(r.reason).slice(0, 80).join('')
      const res = await client.call<Refund>(cfg, 'POST', PATHS.refunds, body)
      checkAbout('WeChat Pay', 'the refund', refundIds(r), res.data, ['out_refund_no'])
      return refundState(res.data?.status, res.data?.refund_id, res.data?.amount?.currency)
    },

    finishBrowserStep: (cfg, code) => fetchOpenid(cfg, code, client.dispatcher, timeoutMs),

    /** RESOURCE_NOT_EXISTS means WeChat never received it: `not_found` makes reconciliation send it again with the same id. */
    async queryRefund(cfg, ref) {
      if (isCrossBorder(cfg)) return global.queryRefund(cfg, ref)
      try {
        const res = await client.call<Refund>(cfg, 'GET', `${PATHS.refunds}/${encodeURIComponent(ref.refundId)}`)
        checkAbout('WeChat Pay', 'the refund query', refundIds(ref), res.data, ['out_refund_no'])
        return refundState(res.data?.status, res.data?.refund_id, res.data?.amount?.currency)
      } catch (e) {
        if (e instanceof ProviderError && e.code === 'RESOURCE_NOT_EXISTS') throw new ProviderError('unknown', 'not_found', `WeChat Pay has no refund ${ref.refundId}`)
        throw e
      }
    },

    statements: wechatStatements(client, { now, gzip: opts.statementGzip, limits: opts.statementLimits }),
  }
}
