/**
 * The trade APIs behind the gateway: ordering (precreate's QR code; page.pay and wap.pay's cashier
 * orders), query, close, refund and refund query, with the business errors (ACQ.*) Alipay gives
 * for each. Every function gets an authenticated app and the request's parameters.
 */
import { randomBytes } from 'node:crypto'
import { closeTrade, expireIfDue, payTrade } from './actions.js'
import { bizContent, business, invalidParameter, readOrder, readRefund, tradeRef, type TradeMethod } from './checks.js'
import type { Notifier } from './notify.js'
import type { FakeApp, FakeStore, Product, RefundRecord, Trade } from './store.js'
import { notExistExtra, queryView } from './views.js'
import { beijingText, success, yuan } from './wire.js'

type Params = Record<string, string>
export type Answer = Record<string, string | undefined>

export function tradeApi(store: FakeStore, notifier: Notifier) {
  /** An order request, or its repeat: the same order again, or a refusal if it changed or is over. */
  function place(app: FakeApp, product: Product, params: Params): Trade {
    const o = readOrder(store, product, params, bizContent(params))
    const existing = store.trade(app.appId, o.outTradeNo)
    if (existing) {
      expireIfDue(store, notifier, existing)
      if (existing.gmtPaymentMs !== undefined) throw business('ACQ.TRADE_HAS_SUCCESS', '交易已被支付')
      if (existing.status === 'TRADE_CLOSED') throw business('ACQ.TRADE_HAS_CLOSE', '交易已经关闭')
      if (existing.fingerprint !== o.fingerprint) throw business('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改')
      return existing
    }
    const t: Trade = {
      appId: app.appId, sellerId: app.sellerId, outTradeNo: o.outTradeNo, product, fingerprint: o.fingerprint, subject: o.subject, body: o.body,
      total: o.total, notifyUrl: o.notifyUrl, returnUrl: o.returnUrl, quitUrl: o.quitUrl, passbackParams: o.passbackParams,
      expiresAtMs: o.expiresAtMs, exists: false, status: 'WAIT_BUYER_PAY', failedTries: 0, refunded: 0,
      ...(product === 'precreate' ? { qrCode: store.newQrCode() } : { cashierId: randomBytes(12).toString('hex') }),
    }
    store.trades.set(`${t.appId}:${t.outTradeNo}`, t)
    return t
  }

  /** The trade named by trade_no or out_trade_no, if Alipay has created it. */
  function existing(app: FakeApp, params: Params): Trade {
    const ref = tradeRef(bizContent(params))
    const t = ref.tradeNo
      ? store.findTrade((x) => x.appId === app.appId && x.tradeNo === ref.tradeNo)
      : store.trade(app.appId, ref.outTradeNo!)
    if (t) expireIfDue(store, notifier, t)
    if (!t?.exists) throw business('ACQ.TRADE_NOT_EXIST', '交易不存在', { extra: notExistExtra(ref.outTradeNo) })
    return t
  }

  const refundAnswer = (t: Trade, r: RefundRecord, fundChange: 'Y' | 'N'): Answer => success({
    buyer_logon_id: t.buyerLogonId, buyer_user_id: t.buyerId, fund_change: fundChange, gmt_refund_pay: beijingText(r.gmtRefundMs),
    out_trade_no: t.outTradeNo, refund_fee: yuan(t.refunded), trade_no: t.tradeNo,
  })

  function refund(app: FakeApp, params: Params): Answer {
    const req = readRefund(store, bizContent(params))
    const t = existing(app, params)
    // Without out_request_no the refund's number is the out_trade_no: one full refund.
    const outRequestNo = req.outRequestNo ?? t.outTradeNo
    const same = store.refundsOf(t).find((r) => r.outRequestNo === outRequestNo)
    if (same) {
      // The same number again refunds nothing more: Alipay answers as before, fund_change N.
      if (same.amount !== req.amount) throw business('ACQ.DISCORDANT_REPEAT_REQUEST', '不一致的请求')
      return refundAnswer(t, same, 'N')
    }
    if (t.status === 'TRADE_FINISHED') throw business('ACQ.TRADE_HAS_FINISHED', '交易已完结')
    if (t.gmtPaymentMs === undefined) throw business('ACQ.TRADE_STATUS_ERROR', '交易状态非法')
    const refused = { out_trade_no: t.outTradeNo, refund_fee: '0.00', send_back_fee: '0.00' }
    if (!req.outRequestNo && req.amount !== t.total) throw business('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '撤销或退款金额与订单金额不一致', { extra: refused, note: 'a partial refund needs out_request_no' })
    if (req.amount > t.total) throw business('ACQ.REASON_TRADE_REFUND_FEE_ERR', '退款金额无效', { extra: refused })
    if (t.refunded + req.amount > t.total) throw business('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '退款金额超限', { extra: refused, note: `${yuan(t.total - t.refunded)} left to refund` })
    const now = store.nowMs()
    const r: RefundRecord = {
      appId: t.appId, outTradeNo: t.outTradeNo, tradeNo: t.tradeNo!, outRequestNo, amount: req.amount, reason: req.reason,
      gmtRefundMs: now, visibleAtMs: now + store.knobs.refundQueryDelayMs,
    }
    store.refunds.push(r)
    t.refunded += req.amount
    if (t.refunded === t.total) {
      t.status = 'TRADE_CLOSED'
      t.gmtCloseMs = now
    }
    // Alipay notifies refunds too, as the trade stood right after this one; after this answer, never ahead of it.
    const state = { ...t }
    if (store.knobs.notifyRefundsAndClosings) store.jobs.schedule(0, () => notifier.send(state, 'refund', t.notifyUrl, { refundFee: state.refunded, gmtRefundMs: now, outRequestNo }))
    return refundAnswer(t, r, 'Y')
  }

  function refundQuery(app: FakeApp, params: Params): Answer {
    const biz = bizContent(params)
    const outRequestNo = typeof biz.out_request_no === 'string' && biz.out_request_no ? biz.out_request_no : null
    if (!outRequestNo) throw invalidParameter('out_request_no is required (the out_trade_no for a refund sent without one)')
    const t = existing(app, params)
    const r = store.refundsOf(t).find((x) => x.outRequestNo === outRequestNo)
    // No refund_status: the refund was not received (or failed), as Alipay answers.
    if (!r || store.nowMs() < r.visibleAtMs) return success({})
    return success({
      out_request_no: r.outRequestNo, out_trade_no: t.outTradeNo, refund_amount: yuan(r.amount), refund_reason: r.reason,
      refund_status: 'REFUND_SUCCESS', total_amount: yuan(t.total), trade_no: t.tradeNo,
    })
  }

  const api: Record<TradeMethod, (app: FakeApp, params: Params) => Answer | Promise<Answer>> = {
    'alipay.trade.precreate': (app, params) => {
      const t = place(app, 'precreate', params)
      return success({ out_trade_no: t.outTradeNo, qr_code: t.qrCode })
    },
    'alipay.trade.query': (app, params) => queryView(existing(app, params)),
    'alipay.trade.close': async (app, params) => {
      const t = existing(app, params)
      if (t.payOnClose && t.status === 'WAIT_BUYER_PAY') await payTrade(store, notifier, t)
      if (t.status !== 'WAIT_BUYER_PAY') throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法', { note: 'only a trade awaiting payment can be closed' })
      closeTrade(store, notifier, t, params.notify_url || undefined)
      return success({ out_trade_no: t.outTradeNo, trade_no: t.tradeNo })
    },
    'alipay.trade.refund': refund,
    'alipay.trade.fastpay.refund.query': refundQuery,
  }
  return { api, place }
}
