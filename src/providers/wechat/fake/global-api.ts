/**
 * The fake's WeChat Pay Global (cross-border) API v3, direct mode: the same authentication, body
 * checks, signed answers, state machines and notifications as the mainland routes (api.ts), with
 * the global paths and fields: trade_type, merchant_category_code, the listed currency (the
 * merchant's settlement currency), `id` for order and refund numbers, and the exchange fields.
 * Written from the protocol notes in docs/providers.md, not from the adapter.
 */
import type { FastifyInstance } from 'fastify'
import type { ApiParts, Ctx } from './api.js'
import { param, validateOrder, validateRefund, WxError, type ValidOrder, type ValidRefund } from './checks.js'
import type { FakeStore, TradeType } from './store.js'
import { globalRefundCreatedView, refundView, transactionView } from './views.js'

export const GLOBAL_ORDER_FIELDS = [
  'appid', 'mchid', 'description', 'out_trade_no', 'trade_type', 'merchant_category_code', 'time_start', 'time_expire', 'attach',
  'notify_url', 'goods_tag', 'limit_pay', 'amount', 'payer', 'scene_info', 'promotion_detail',
] as const
export const GLOBAL_REFUND_FIELDS = ['mchid', 'appid', 'transaction_id', 'out_trade_no', 'out_refund_no', 'reason', 'amount', 'notify_url'] as const
const CLOSE_FIELDS = ['mchid'] as const

/** A mainland merchant number has no cross-border product. */
function crossBorderOnly(c: Ctx) {
  if (c.merchant.service !== 'cross_border') throw new WxError(403, 'NO_AUTH', '商户号未开通跨境支付权限')
}

/**
 * The global order rules on top of the mainland ones (description, out_trade_no, time_expire,
 * notify_url, openid, client IP): trade_type must name the route's type, merchant_category_code
 * is required, and amount.currency is required and must be the merchant's currency.
 */
function validateGlobalOrder(store: FakeStore, c: Ctx, type: TradeType): ValidOrder {
  crossBorderOnly(c)
  const b = c.body
  if (b.trade_type !== type) throw param(`trade_type应为${type}`)
  if (typeof b.merchant_category_code !== 'string' || !/^\d{4}$/.test(b.merchant_category_code)) throw param('缺少参数merchant_category_code')
  const a = b.amount
  if (typeof a !== 'object' || a === null) throw param('缺少参数amount')
  if (typeof a.currency !== 'string') throw param('缺少参数amount.currency')
  if (a.currency !== c.merchant.settlementCurrency) throw param(`amount.currency与商户结算币种(${c.merchant.settlementCurrency})不一致`)
  if (type === 'MWEB' && (typeof b.scene_info?.payer_client_ip !== 'string' || !b.scene_info.payer_client_ip)) throw param('H5下单缺少scene_info.payer_client_ip')
  // The shared rules, given the body without the global-only fields (and h5_info, which the global H5 order has not).
  const { trade_type: _t, merchant_category_code: _m, time_start: _s, limit_pay: _l, promotion_detail: _p, ...rest } = b
  const shared = { ...rest, amount: { total: a.total }, ...(type === 'MWEB' ? { scene_info: { ...b.scene_info, h5_info: { type: 'Wap' } } } : {}) }
  return { ...validateOrder(store, c.merchant, type, shared), currency: a.currency }
}

function validateGlobalRefund(c: Ctx): ValidRefund {
  crossBorderOnly(c)
  const b = c.body
  if (b.mchid !== c.merchant.mchId) throw param('mchid与请求商户号不一致')
  if (typeof b.appid !== 'string' || !c.merchant.appIds.includes(b.appid)) throw new WxError(400, 'APPID_MCHID_NOT_MATCH', 'appid和mch_id不匹配')
  return validateRefund(b, true)
}

export function registerGlobalApi(app: FastifyInstance, store: FakeStore, p: ApiParts) {
  const place = (type: TradeType) => p.place(type, (c) => validateGlobalOrder(store, c, type))
  app.post('/v3/global/transactions/native', p.handle('native', GLOBAL_ORDER_FIELDS, place('NATIVE')))
  app.post('/v3/global/transactions/jsapi', p.handle('jsapi', GLOBAL_ORDER_FIELDS, place('JSAPI')))
  app.post('/v3/global/transactions/mweb', p.handle('h5', GLOBAL_ORDER_FIELDS, place('MWEB')))

  app.get<{ Params: { no: string } }>('/v3/global/transactions/out-trade-no/:no', p.handle('query', null, (c) => {
    crossBorderOnly(c)
    p.checkMchidQuery(c)
    return { status: 200, body: transactionView(p.orderOf(c, (c.req.params as { no: string }).no)) }
  }))

  app.get<{ Params: { id: string } }>('/v3/global/transactions/id/:id', p.handle('query', null, (c) => {
    crossBorderOnly(c)
    p.checkMchidQuery(c)
    const id = (c.req.params as { id: string }).id
    const o = store.findOrder((x) => x.mchId === c.merchant.mchId && x.transactionId === id)
    if (!o) throw new WxError(404, 'ORDER_NOT_EXIST', '订单不存在')
    return { status: 200, body: transactionView(o) }
  }))

  app.post('/v3/global/transactions/out-trade-no/:no/close', p.handle('close', CLOSE_FIELDS, (c) => (crossBorderOnly(c), p.close(c))))

  app.post('/v3/global/refunds', p.handle('refund', GLOBAL_REFUND_FIELDS, (c) => p.refund(c, validateGlobalRefund(c), globalRefundCreatedView)))

  app.get<{ Params: { no: string } }>('/v3/global/refunds/out-refund-no/:no', p.handle('queryRefund', null, (c) => {
    crossBorderOnly(c)
    p.checkMchidQuery(c)
    const r = store.refunds.get(`${c.merchant.mchId}:${(c.req.params as { no: string }).no}`)
    if (!r) throw new WxError(404, 'RESOURCE_NOT_EXISTS', '退款单不存在')
    return { status: 200, body: refundView(r) }
  }))

  app.get('/v3/global/certificates', p.handle('certificates', null, (c) => (crossBorderOnly(c), p.certificates(c))))
}
