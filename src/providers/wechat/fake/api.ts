/**
 * The fake's /v3 API (docs/providers.md#wechat-pay-wechat): every request checked as checks.ts describes, every
 * answer signed (errors and the empty 204 too). Orders and refunds follow §3.1's state machines.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { canonicalJson } from '../../../domain/canonical-json.js'
import { withForcedError } from '../../fake-kit/forced-errors.js'
import { loggedBody } from '../../fake-kit/request-log.js'
import { payOrder, settleRefund } from './actions.js'
import { authenticate, CLOSE_FIELDS, ORDER_FIELDS, readBody, REFUND_FIELDS, validateOrder, validateRefund, WxError, type ValidOrder, type ValidRefund } from './checks.js'
import { registerBillApply } from './bill-api.js'
import { registerGlobalApi } from './global-api.js'
import { beijing, gcmSeal, randomAlnum, randomDigits } from './crypto.js'
import type { Notifier } from './notify.js'
import type { FakeMerchant, FakeStore, Order, RefundOutcome, RefundRecord, TradeType } from './store.js'
import { cnyFen, refundView, signedAnswerHeaders, transactionView } from './views.js'

export interface Ctx {
  merchant: FakeMerchant
  body: Record<string, any>
  req: FastifyRequest
}
export type Out = { status: number; body?: unknown }

const MAX_REFUNDS = 50
const YEAR_MS = 365 * 24 * 3600_000

export function registerApi(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

  app.addHook('onSend', async (req, reply, payload) => {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : ''
    store.requests.push({
      method: req.method, path: req.raw.url ?? req.url, request: loggedBody(req.body), wechatpaySerial: req.headers['wechatpay-serial'] as string | undefined,
      status: reply.statusCode, atMs: store.clock().getTime(),
    })
    reply.headers(signedAnswerHeaders(store, req.headers['wechatpay-serial'] as string | undefined, body))
    return payload
  })

  const handle = (route: string, allowed: readonly string[] | null, fn: (c: Ctx) => Out | Promise<Out>) => async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const raw = { method: req.method, target: req.raw.url ?? req.url, headers: req.headers, body: (req.body as Buffer | undefined) ?? Buffer.alloc(0) }
      const merchant = authenticate(store, raw)
      const body = readBody(store, raw, allowed)
      const out = await withForcedError(store.knobs.errors, route, (e) => new WxError(e.status, e.code, e.message), () => fn({ merchant, body, req }))
      return out.body === undefined ? reply.code(out.status).send() : reply.code(out.status).type('application/json').send(JSON.stringify(out.body))
    } catch (e) {
      if (!(e instanceof WxError)) throw e
      return reply.code(e.status).type('application/json').send(JSON.stringify({ code: e.code, message: e.message }))
    }
  }

  const checkMchidQuery = (c: Ctx) => {
    const q = (c.req.query as Record<string, string>).mchid
    if (q !== c.merchant.mchId) throw new WxError(400, 'PARAM_ERROR', 'mchid与请求商户号不一致')
  }
  const orderOf = (c: Ctx, outTradeNo: string) => {
    const o = store.order(c.merchant.mchId, outTradeNo)
    if (!o) throw new WxError(404, 'ORDER_NOT_EXIST', '订单不存在')
    return o
  }

  /** The mainland API takes mainland merchants only; the cross-border one (global-api.ts) the others. */
  const mainlandOnly = (c: Ctx) => {
    if (c.merchant.service === 'cross_border') throw new WxError(400, 'INVALID_REQUEST', '暂不支持境外支付')
  }

  const place = (type: TradeType, validate: (c: Ctx) => ValidOrder = (c) => (mainlandOnly(c), validateOrder(store, c.merchant, type, c.body))) => (c: Ctx): Out => {
    const v = validate(c)
    // Sorted keys, so a retry that serialises the same body differently still counts as the same body.
    const fingerprint = canonicalJson(c.body)
    let o = store.order(c.merchant.mchId, v.out_trade_no)
    if (o) {
      if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new WxError(400, 'ORDERPAID', '订单已支付')
      if (o.state === 'CLOSED') throw new WxError(400, 'ORDER_CLOSED', '订单已关闭')
      if (o.fingerprint !== fingerprint || o.tradeType !== type) throw new WxError(400, 'INVALID_REQUEST', '请求重入时，参数与首次请求时不一致')
    } else {
      const prepayId = store.newPrepayId()
      o = {
        mchId: c.merchant.mchId, appId: v.appid, outTradeNo: v.out_trade_no, tradeType: type, fingerprint, description: v.description,
        total: v.total, notifyUrl: v.notify_url, expiresAtMs: v.expiresAtMs, attach: v.attach, openid: v.openid, state: 'NOTPAY',
        prepayId, failedTries: 0, service: c.merchant.service, currency: v.currency ?? 'CNY',
        codeUrl: type === 'NATIVE' ? `weixin://wxpay/bizpayurl/up?pr=${randomAlnum(7)}&groupid=00` : undefined,
        h5Url: type === 'MWEB' ? `${baseUrl()}/__fake/h5/checkmweb?prepay_id=${prepayId}&package=${randomDigits(10)}` : undefined,
      }
      store.orders.set(`${o.mchId}:${o.outTradeNo}`, o)
    }
    if (type === 'NATIVE') return { status: 200, body: { code_url: o.codeUrl } }
    if (type === 'MWEB') return { status: 200, body: o.service === 'cross_border' ? { mweb_url: o.h5Url } : { h5_url: o.h5Url } }
    return { status: 200, body: { prepay_id: o.prepayId } }
  }

  app.post('/v3/pay/transactions/native', handle('native', ORDER_FIELDS, place('NATIVE')))
  app.post('/v3/pay/transactions/jsapi', handle('jsapi', ORDER_FIELDS, place('JSAPI')))
  app.post('/v3/pay/transactions/h5', handle('h5', ORDER_FIELDS, place('MWEB')))

  app.get<{ Params: { no: string } }>('/v3/pay/transactions/out-trade-no/:no', handle('query', null, (c) => {
    mainlandOnly(c)
    checkMchidQuery(c)
    return { status: 200, body: transactionView(orderOf(c, (c.req.params as { no: string }).no)) }
  }))

  app.get<{ Params: { id: string } }>('/v3/pay/transactions/id/:id', handle('query', null, (c) => {
    mainlandOnly(c)
    checkMchidQuery(c)
    const id = (c.req.params as { id: string }).id
    const o = store.findOrder((x) => x.mchId === c.merchant.mchId && x.transactionId === id)
    if (!o) throw new WxError(404, 'ORDER_NOT_EXIST', '订单不存在')
    return { status: 200, body: transactionView(o) }
  }))

  const close = async (c: Ctx): Promise<Out> => {
    if (c.body.mchid !== c.merchant.mchId) throw new WxError(400, 'PARAM_ERROR', 'mchid与请求商户号不一致')
    const o = orderOf(c, (c.req.params as { no: string }).no)
    if (o.payOnClose && o.state === 'NOTPAY') await payOrder(store, notifier, o)
    if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new WxError(400, 'ORDERPAID', '订单已支付')
    o.state = 'CLOSED'
    return { status: 204 }
  }
  app.post<{ Params: { no: string } }>('/v3/pay/transactions/out-trade-no/:no/close', handle('close', CLOSE_FIELDS, (c) => (mainlandOnly(c), close(c))))

  /** A refund on either API: the same rules, the same idempotency, each its own view. */
  const refund = (c: Ctx, v: ValidRefund, view: (r: RefundRecord) => unknown): Out => {
    const o = v.outTradeNo
      ? store.order(c.merchant.mchId, v.outTradeNo)
      : store.findOrder((x) => x.mchId === c.merchant.mchId && x.transactionId === v.transactionId)
    if (!o || (o.state !== 'SUCCESS' && o.state !== 'REFUND')) throw new WxError(404, 'RESOURCE_NOT_EXISTS', '订单不存在或未支付')
    const existing = store.refunds.get(`${c.merchant.mchId}:${v.outRefundNo}`)
    if (existing) {
      // A retry with the same out_refund_no is the same refund, never a second one.
      if (existing.outTradeNo !== o.outTradeNo || existing.refund !== v.refund) throw new WxError(400, 'INVALID_REQUEST', '请求重入时，参数与首次请求时不一致')
      return { status: 200, body: view(existing) }
    }
    if (v.total !== o.total) throw new WxError(400, 'PARAM_ERROR', '订单金额与原订单不一致')
    if ((v.currency ?? 'CNY') !== o.currency) throw new WxError(400, 'PARAM_ERROR', '退款币种与订单币种不一致')
    if (store.nowMs() - o.successTimeMs! > YEAR_MS) throw new WxError(400, 'INVALID_REQUEST', '订单已超过退款期限')
    const live = store.refundsOf(o).filter((r) => r.status !== 'CLOSED')
    if (store.refundsOf(o).length >= MAX_REFUNDS) throw new WxError(400, 'INVALID_REQUEST', '退款次数超过限制')
    if (live.reduce((s, r) => s + r.refund, 0) + v.refund > o.total) throw new WxError(400, 'INVALID_REQUEST', '申请退款金额超过订单可退金额')
    const outcome: RefundOutcome = store.knobs.refundOutcomes.get(v.outRefundNo) ?? store.knobs.refundOutcomes.get('next') ?? { status: 'SUCCESS', delayMs: 0, sync: false }
    store.knobs.refundOutcomes.delete(store.knobs.refundOutcomes.has(v.outRefundNo) ? v.outRefundNo : 'next')
    const r: RefundRecord = {
      mchId: o.mchId, outRefundNo: v.outRefundNo, refundId: store.newRefundId(), outTradeNo: o.outTradeNo, transactionId: o.transactionId!,
      refund: v.refund, total: v.total, reason: v.reason, notifyUrl: v.notifyUrl, status: 'PROCESSING', createTimeMs: store.nowMs(),
      outcome: outcome.status, service: o.service, currency: o.currency,
      ...(o.rate !== undefined ? { rate: o.rate, payerRefund: cnyFen(v.refund, o.currency, o.rate) } : {}),
    }
    store.refunds.set(`${r.mchId}:${r.outRefundNo}`, r)
    o.state = 'REFUND'
    if (outcome.sync) settleRefund(store, r)
    // The notification always comes afterwards, from the job queue, never ahead of this answer.
    store.jobs.schedule(outcome.sync ? 0 : outcome.delayMs, async () => {
      if (settleRefund(store, r) || outcome.sync) await notifier.refundSettled(r)
    })
    return { status: 200, body: view(r) }
  }
  app.post('/v3/refund/domestic/refunds', handle('refund', REFUND_FIELDS, (c) => (mainlandOnly(c), refund(c, validateRefund(c.body), refundView))))

  app.get<{ Params: { no: string } }>('/v3/refund/domestic/refunds/:no', handle('queryRefund', null, (c) => {
    mainlandOnly(c)
    const r = store.refunds.get(`${c.merchant.mchId}:${(c.req.params as { no: string }).no}`)
    if (!r) throw new WxError(404, 'RESOURCE_NOT_EXISTS', '退款单不存在')
    return { status: 200, body: refundView(r) }
  }))

  const certificates = (c: Ctx): Out => ({
    status: 200,
    body: {
      data: store.platform.certs.map((cert) => {
        const nonce = randomAlnum(12)
        return {
          serial_no: cert.serial,
          effective_time: beijing(cert.notBefore.getTime()),
          expire_time: beijing(cert.notAfter.getTime()),
          encrypt_certificate: { algorithm: 'AEAD_AES_256_GCM', nonce, associated_data: 'certificate', ciphertext: gcmSeal(c.merchant.apiV3Key, nonce, 'certificate', cert.pem) },
        }
      }),
    },
  })
  app.get('/v3/certificates', handle('certificates', null, (c) => (mainlandOnly(c), certificates(c))))

  registerGlobalApi(app, store, { handle, place, close, refund, certificates, orderOf, checkMchidQuery })
  registerBillApply(app, store, handle, baseUrl)
}

export type ApiParts = {
  handle: (route: string, allowed: readonly string[] | null, fn: (c: Ctx) => Out | Promise<Out>) => (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>
  place: (type: TradeType, validate: (c: Ctx) => ValidOrder) => (c: Ctx) => Out
  close: (c: Ctx) => Promise<Out>
  refund: (c: Ctx, v: ValidRefund, view: (r: RefundRecord) => unknown) => Out
  certificates: (c: Ctx) => Out
  orderOf: (c: Ctx, outTradeNo: string) => Order
  checkMchidQuery: (c: Ctx) => void
}

