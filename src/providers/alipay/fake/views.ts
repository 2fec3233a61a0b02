/**
 * What the fake says about a trade: alipay.trade.query's answer, the asynchronous notification's
 * form, and the parameters the browser brings back to return_url.
 */
import { randomBytes } from 'node:crypto'
import { signingText, signRsa2 } from '../sign.js'
import type { FakeStore, Trade } from './store.js'
import { beijingText, success, yuan } from './wire.js'

const paid = (t: Trade) => t.status === 'TRADE_SUCCESS' || t.status === 'TRADE_FINISHED' || (t.status === 'TRADE_CLOSED' && t.gmtPaymentMs !== undefined)

/** The amounts a paid trade reports (no discounts in the fake: the buyer paid the total). */
function amounts(t: Trade) {
  const p = paid(t) ? yuan(t.total) : '0.00'
  return { buyer_pay_amount: p, invoice_amount: p, point_amount: '0.00', receipt_amount: p }
}

/** alipay.trade.query's answer for an existing trade. */
export function queryView(t: Trade) {
  return success({
    buyer_logon_id: t.buyerLogonId,
    ...amounts(t),
    buyer_user_id: t.buyerId,
    out_trade_no: t.outTradeNo,
    ...(paid(t) ? { send_pay_date: beijingText(t.gmtPaymentMs!) } : {}),
    total_amount: yuan(t.total),
    trade_no: t.tradeNo,
    trade_status: t.status,
  })
}

/** What ACQ.TRADE_NOT_EXIST comes with from alipay.trade.query. */
export const notExistExtra = (outTradeNo: string | undefined) => ({
  buyer_pay_amount: '0.00', invoice_amount: '0.00', ...(outTradeNo ? { out_trade_no: outTradeNo } : {}), point_amount: '0.00', receipt_amount: '0.00',
})

export const newNotifyId = () => randomBytes(17).toString('hex')

/** A refund's fields in the trade_status_sync Alipay sends after it (the trade stays TRADE_SUCCESS, or closes when all is refunded). */
export interface RefundNotice {
  refundFee: number
  gmtRefundMs: number
  outRequestNo: string
}

/** The notification's form, without notify_time and sign (set on each attempt). */
export function notificationParams(store: FakeStore, t: Trade, notifyId: string, refund?: RefundNotice): Record<string, string> {
  const p: Record<string, string | undefined> = {
    app_id: t.appId,
    auth_app_id: t.appId,
    body: t.body,
    buyer_id: t.buyerId,
    charset: 'utf-8',
    gmt_create: t.gmtCreateMs === undefined ? undefined : beijingText(t.gmtCreateMs),
    notify_id: notifyId,
    notify_type: 'trade_status_sync',
    out_trade_no: t.outTradeNo,
    passback_params: t.passbackParams,
    seller_id: t.sellerId,
    sign_type: 'RSA2',
    subject: t.subject,
    total_amount: yuan(t.total),
    trade_no: t.tradeNo,
    trade_status: t.status,
    version: '1.0',
  }
  if (paid(t)) {
    Object.assign(p, amounts(t), {
      gmt_payment: beijingText(t.gmtPaymentMs!),
      fund_bill_list: JSON.stringify([{ amount: yuan(t.total), fundChannel: 'ALIPAYACCOUNT' }]),
    })
  }
  if (t.status === 'TRADE_CLOSED' && t.gmtCloseMs !== undefined) p.gmt_close = beijingText(t.gmtCloseMs)
  if (refund) {
    // gmt_refund carries milliseconds, unlike Alipay's other timestamps.
    Object.assign(p, { refund_fee: yuan(refund.refundFee), gmt_refund: `${beijingText(refund.gmtRefundMs)}.${String(refund.gmtRefundMs % 1000).padStart(3, '0')}`, out_biz_no: refund.outRequestNo })
  }
  return Object.fromEntries(Object.entries(p).filter((e): e is [string, string] => e[1] !== undefined))
}

/** Alipay signs a notification and return parameters over everything but sign and sign_type. */
export const signNotification = (store: FakeStore, params: Record<string, string>) => signRsa2(signingText(params, ['sign', 'sign_type']), store.alipayKey.privateKey)

/** The browser's way back after paying on the cashier: return_url with these, signed. */
export function returnParams(store: FakeStore, t: Trade): Record<string, string> {
  const p: Record<string, string> = {
    app_id: t.appId,
    auth_app_id: t.appId,
    charset: 'utf-8',
    method: t.product === 'wap' ? 'alipay.trade.wap.pay.return' : 'alipay.trade.page.pay.return',
    out_trade_no: t.outTradeNo,
    seller_id: t.sellerId,
    sign_type: 'RSA2',
    timestamp: beijingText(store.nowMs()),
    total_amount: yuan(t.total),
    trade_no: t.tradeNo!,
    version: '1.0',
  }
  return { ...p, sign: signNotification(store, p) }
}
