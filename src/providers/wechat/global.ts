/**
 * The cross-border half of the WeChat adapter (WeChat Pay Global, direct mode): the same signed
 * client, keys and notifications as the mainland, its own paths and bodies (global-wire.ts).
 * index.ts sends a configuration here when its settings say `service: cross_border`.
 */
import type { AttemptInput, AttemptResult, CloseResult, PaymentRef, PaymentState, ProviderConfig, RefundInput, RefundRef, RefundState } from '../types.js'
import { ProviderError } from '../types.js'
import { checkAbout, refundIds } from '../answers.js'
import { GLOBAL_PATHS, type WechatChannel } from './constants.js'
import {
  globalOrderRequest, globalPaymentFact, globalPaymentState, globalRefundState,
  type GlobalRefund, type GlobalRefundRequest, type GlobalTransaction,
} from './global-wire.js'
import { closeOrConfirm } from './close.js'
import { credentialsOf, type WechatClient } from './http.js'
import { listedCurrencies, wechatSettingsOf } from './service.js'
import { jsapiParams, privateKeyOf } from './sign.js'
import { h5RedirectUrl } from './wire.js'

const outTradeNoPath = (outTradeNo: string) => `${GLOBAL_PATHS.byOutTradeNo}${encodeURIComponent(outTradeNo)}`

export function globalOps(client: WechatClient, now: () => Date) {
  async function query(cfg: ProviderConfig, outTradeNo: string): Promise<GlobalTransaction> {
    const c = credentialsOf(cfg)
    try {
      const t = (await client.call<GlobalTransaction>(cfg, 'GET', `${outTradeNoPath(outTradeNo)}?mchid=${encodeURIComponent(c.mchId)}`)).data ?? {}
      checkAbout('WeChat Pay Global', 'the order query', { out_trade_no: outTradeNo, mchid: c.mchId }, t, ['out_trade_no'])
      return t
    } catch (e) {
      if (e instanceof ProviderError && e.code === 'ORDER_NOT_EXIST') return { out_trade_no: outTradeNo, trade_state: 'CLOSED' }
      throw e
    }
  }

  return {
    async createAttempt(cfg: ProviderConfig, channel: WechatChannel, a: AttemptInput): Promise<AttemptResult> {
      const c = credentialsOf(cfg)
      const s = wechatSettingsOf(cfg.settings)
      const body = globalOrderRequest(channel, { mchId: c.mchId, appId: c.appId, merchantCategoryCode: s.merchantCategoryCode ?? '' }, listedCurrencies(cfg.settings), a)
      const res = await client.call<{ code_url?: string; mweb_url?: string; h5_url?: string; prepay_id?: string }>(cfg, 'POST', GLOBAL_PATHS[channel], body)
      const d = res.data ?? {}
      const h5Url = d.mweb_url ?? d.h5_url
      if (channel === 'native' && d.code_url) return { action: { kind: 'qr', content: d.code_url }, data: { channel, codeUrl: d.code_url } }
      if (channel === 'h5' && h5Url) return { action: { kind: 'redirect', url: h5RedirectUrl(h5Url, a.returnUrl) }, data: { channel } }
      if (channel === 'jsapi' && d.prepay_id) {
        const params = jsapiParams(privateKeyOf(c.privateKey), c.appId, d.prepay_id, now())
        return { action: { kind: 'in_app', params: { ...params } }, data: { channel, prepayId: d.prepay_id } }
      }
      throw new ProviderError('unknown', 'malformed_response', `WeChat Pay Global answered ${channel} without its payment artefact`)
    },

    queryPayment: async (cfg: ProviderConfig, ref: PaymentRef): Promise<PaymentState> => globalPaymentState(await query(cfg, ref.attemptId)),

    closePayment: (cfg: ProviderConfig, ref: PaymentRef): Promise<CloseResult> =>
      closeOrConfirm(client, cfg, `${outTradeNoPath(ref.attemptId)}/close`, ref, async () => {
        const t = await query(cfg, ref.attemptId)
        return { state: globalPaymentState(t), fact: () => globalPaymentFact(t) }
      }),

    /** In the listed currency, the record's amounts; WeChat converts the CNY refund to the payer itself. */
    async refund(cfg: ProviderConfig, r: RefundInput): Promise<RefundState> {
      const listed = listedCurrencies(cfg.settings)
      if (!listed.includes(r.currency)) throw new ProviderError('rejected', 'unsupported_currency', `this WeChat Pay Global configuration refunds ${listed.join(', ')}, not ${r.currency}`, false)
      const c = credentialsOf(cfg)
      const body: GlobalRefundRequest = {
        mchid: c.mchId,
        appid: c.appId,
        ...(r.payment.attemptId ? { out_trade_no: r.payment.attemptId } : { transaction_id: r.payment.providerRef ?? '' }),
        out_refund_no: r.refundId,
        notify_url: r.notifyUrl,
        amount: { refund: r.amount, total: r.totalAmount, currency: r.currency },
      }
      if (r.reason) body.reason = Array.from(r.reason).slice(0, 80).join('')
      const res = await client.call<GlobalRefund>(cfg, 'POST', GLOBAL_PATHS.refunds, body)
      checkAbout('WeChat Pay Global', 'the refund', refundIds(r), res.data, ['out_refund_no'])
      // The documented create answer carries no status: absent means accepted and processing.
      return globalRefundState(res.data?.status, res.data?.id ?? res.data?.refund_id, res.data?.amount?.currency)
    },

    async queryRefund(cfg: ProviderConfig, ref: RefundRef): Promise<RefundState> {
      const c = credentialsOf(cfg)
      try {
        const res = await client.call<GlobalRefund>(cfg, 'GET', `${GLOBAL_PATHS.refundByOutRefundNo}${encodeURIComponent(ref.refundId)}?mchid=${encodeURIComponent(c.mchId)}`)
        checkAbout('WeChat Pay Global', 'the refund query', refundIds(ref), res.data, ['out_refund_no'])
        return globalRefundState(res.data?.status, res.data?.id ?? res.data?.refund_id, res.data?.amount?.currency)
      } catch (e) {
        if (e instanceof ProviderError && e.code === 'RESOURCE_NOT_EXISTS') throw new ProviderError('unknown', 'not_found', `WeChat Pay Global has no refund ${ref.refundId}`)
        throw e
      }
    },
  }
}
