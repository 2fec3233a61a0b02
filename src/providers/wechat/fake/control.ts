/**
 * Test knobs under /__fake/wechat/… (docs/providers.md#testing-offline-till-fake-wechat), a prefix the real WeChat never has, so
 * adapter code cannot come to depend on them; the ones every fake has are in fake-kit/knobs.ts.
 * JSON in, JSON out.
 */
import type { FastifyInstance } from 'fastify'
import { readForcedError } from '../../fake-kit/forced-errors.js'
import { bad, registerSharedKnobs, type Body } from '../../fake-kit/knobs.js'
import { registerStatementKnobs } from '../../fake-kit/statement-knobs.js'
import { expireOrder, failOrder, payOrder } from './actions.js'
import { BILL_CURRENCIES } from './bills.js'
import { beijing, paySignString, randomDigits, verifyB64 } from './crypto.js'
import type { Notifier } from './notify.js'
import { type FakeStore, type Order, type RefundOutcome } from './store.js'
import { refundView, transactionView } from './views.js'

const ROUTES = ['native', 'jsapi', 'h5', 'query', 'close', 'refund', 'queryRefund', 'certificates', 'tradebill', 'fundflowbill', 'billdownload', 'statements', '*']
const REFUND_OUTCOMES = ['SUCCESS', 'ABNORMAL', 'CLOSED']

/** An order named by out_trade_no, code_url or prepay_id (what a test, a QR scan or an H5 page knows). */
export function locateOrder(store: FakeStore, b: Body): Order | undefined {
  if (typeof b.out_trade_no === 'string') {
    return store.findOrder((o) => o.outTradeNo === b.out_trade_no && (b.mchid === undefined || o.mchId === b.mchid))
  }
  if (typeof b.code_url === 'string') return store.findOrder((o) => o.codeUrl === b.code_url)
  if (typeof b.prepay_id === 'string') return store.findOrder((o) => o.prepayId === b.prepay_id)
  return undefined
}

export function registerControl(app: FastifyInstance, store: FakeStore, notifier: Notifier) {
  const P = '/__fake/wechat'
  registerSharedKnobs(app, P, store, notifier, { routes: ROUTES, read: (b) => ({ ...readForcedError(b, '系统错误'), code: String(b.code ?? 'SYSTEM_ERROR') }) })
  registerStatementKnobs(app, P, store.statementKnobs, {
    refundStatuses: ['SUCCESS', 'PROCESSING', 'REFUNDCLOSE', 'CHANGE'],
    newProviderRef: store.newTransactionId,
    newRef: () => `ext${randomDigits(20)}`,
    currencies: BILL_CURRENCIES,
  })

  app.post(`${P}/pay`, async (req, reply) => {
    const b = (req.body ?? {}) as Body
    const o = locateOrder(store, b)
    if (!o) return bad(reply, 404, 'no such order')
    if (b.at === 'close') {
      // The customer pays just as the merchant's close call arrives.
      o.payOnClose = true
      return { ok: true, order: transactionView(o) }
    }
    const r = await payOrder(store, notifier, o, { openid: b.openid, bankType: b.bank_type })
    return r.ok ? { ok: true, order: transactionView(r.order) } : bad(reply, 409, r.reason)
  })

  app.post(`${P}/fail`, async (req, reply) => {
    const o = locateOrder(store, req.body as Body)
    if (!o) return bad(reply, 404, 'no such order')
    const r = failOrder(store, o)
    return r.ok ? { ok: true, order: transactionView(r.order) } : bad(reply, 409, r.reason)
  })

  app.post(`${P}/expire`, async (req, reply) => {
    const o = locateOrder(store, req.body as Body)
    if (!o) return bad(reply, 404, 'no such order')
    const r = expireOrder(store, o)
    return r.ok ? { ok: true, order: transactionView(r.order) } : bad(reply, 409, r.reason)
  })

  app.post(`${P}/refund-outcome`, async (req, reply) => {
    const b = (req.body ?? {}) as Body
    if (!REFUND_OUTCOMES.includes(b.status)) return bad(reply, 400, `status must be one of ${REFUND_OUTCOMES.join(', ')}`)
    const outcome: RefundOutcome = { status: b.status, delayMs: Number(b.delayMs ?? 0), sync: b.sync === true }
    store.knobs.refundOutcomes.set(typeof b.out_refund_no === 'string' ? b.out_refund_no : 'next', outcome)
    return { ok: true }
  })

  app.post(`${P}/probe`, async () => {
    store.knobs.probeNext = true
    return { ok: true }
  })

  /** The day's rates for cross-border orders: `{"HKD": 0.92}` is 0.92 CNY per HK$1; orders paid afterwards use them. */
  app.post(`${P}/rates`, async (req, reply) => {
    const b = (req.body ?? {}) as Body
    for (const [k, v] of Object.entries(b)) if (!/^[A-Z]{3}$/.test(k) || typeof v !== 'number' || !(v > 0)) return bad(reply, 400, 'rates are {"XXX": CNY per major unit > 0}')
    Object.assign(store.knobs.rates, b)
    return { ok: true, rates: store.knobs.rates }
  })

  app.post(`${P}/settings`, async (req) => {
    const b = (req.body ?? {}) as Body
    for (const k of ['enforceAccept', 'rejectUnknownFields', 'strictAckDeadline'] as const) if (typeof b[k] === 'boolean') store.knobs[k] = b[k]
    return { ok: true, enforceAccept: store.knobs.enforceAccept, rejectUnknownFields: store.knobs.rejectUnknownFields, strictAckDeadline: store.knobs.strictAckDeadline }
  })

  /** Switch signing mode; `rotate` (or entering certificate mode) issues a new certificate with a new serial. */
  app.post(`${P}/mode`, async (req, reply) => {
    const b = (req.body ?? {}) as Body
    if (b.mode !== 'publicKey' && b.mode !== 'platformCert') return bad(reply, 400, 'mode must be publicKey or platformCert')
    if (b.rotate === true || (b.mode === 'platformCert' && store.platform.mode !== 'platformCert')) store.rotateCertificate()
    store.platform.mode = b.mode
    return identity(store)
  })

  /** Sends a paid order's or a settled refund's notification again, to its notify_url or to `url`. */
  // The merchant finishing an ABNORMAL refund by hand in the merchant platform: it ends SUCCESS or CLOSED.
  app.post(`${P}/refund-resolve`, async (req, reply) => {
    const b = (req.body ?? {}) as Body
    const r = [...store.refunds.values()].find((x) => x.outRefundNo === b.out_refund_no)
    if (!r || r.status !== 'ABNORMAL') return bad(reply, 404, 'no ABNORMAL refund by that out_refund_no')
    if (b.status !== 'SUCCESS' && b.status !== 'CLOSED') return bad(reply, 400, 'status must be SUCCESS or CLOSED')
    r.status = b.status
    if (b.status === 'SUCCESS') r.successTimeMs = store.nowMs()
    await notifier.refundSettled(r)
    return { ok: true, refund: refundView(r) }
  })

  app.post(`${P}/resend`, async (req, reply) => {
    const b = (req.body ?? {}) as Body
    const url = typeof b.url === 'string' ? b.url : undefined
    if (typeof b.out_refund_no === 'string') {
      const r = [...store.refunds.values()].find((x) => x.outRefundNo === b.out_refund_no)
      if (!r || r.status === 'PROCESSING') return bad(reply, 404, 'no settled refund by that out_refund_no')
      await notifier.refundSettled(r, url)
      return { ok: true }
    }
    const o = locateOrder(store, b)
    if (!o || (o.state !== 'SUCCESS' && o.state !== 'REFUND')) return bad(reply, 404, 'no paid order')
    await notifier.paymentSucceeded(o, url)
    return { ok: true }
  })

  app.get(`${P}/identity`, async () => identity(store))

  app.get<{ Params: { no: string } }>(`${P}/orders/:no`, async (req, reply) => {
    const o = locateOrder(store, { out_trade_no: req.params.no })
    if (!o) return bad(reply, 404, 'no such order')
    // The wire view plus what the merchant sent, so tests can check the order request itself.
    return {
      ...transactionView(o), description: o.description, time_expire: beijing(o.expiresAtMs), notify_url: o.notifyUrl,
      failed_tries: o.failedTries, refunds: store.refundsOf(o).map(refundView),
    }
  })

  app.get<{ Params: { no: string } }>(`${P}/refunds/:no`, async (req, reply) => {
    const r = [...store.refunds.values()].find((x) => x.outRefundNo === req.params.no)
    return r ? refundView(r) : bad(reply, 404, 'no such refund')
  })

  /**
   * What WeixinJSBridge would do with the page's parameters: check paySign over the 4-line message
   * with the merchant's key, and with `pay: true` pay the order. Answers err_msg as the bridge does.
   */
  app.post(`${P}/jsapi/check`, async (req) => {
    const b = (req.body ?? {}) as Body
    const fail = (reason: string) => ({ ok: false, reason, err_msg: 'get_brand_wcpay_request:fail' })
    const prepayId = typeof b.package === 'string' && b.package.startsWith('prepay_id=') ? b.package.slice('prepay_id='.length) : null
    if (!prepayId) return fail('package must be prepay_id=…')
    const o = store.findOrder((x) => x.prepayId === prepayId)
    if (!o || o.tradeType !== 'JSAPI') return fail('unknown prepay_id')
    if (b.appId !== o.appId) return fail('appId does not match the order')
    if (b.signType !== 'RSA') return fail('signType must be RSA')
    if (typeof b.timeStamp !== 'string' || !/^\d{10}$/.test(b.timeStamp)) return fail('timeStamp must be a string of Unix seconds')
    if (typeof b.nonceStr !== 'string' || !b.nonceStr || b.nonceStr.length > 32) return fail('nonceStr must be 1 to 32 characters')
    const merchant = store.merchants.get(o.mchId)!
    if (typeof b.paySign !== 'string' || !verifyB64(merchant.publicKey, paySignString(b.appId, b.timeStamp, b.nonceStr, b.package), b.paySign)) return fail('paySign does not verify')
    if (b.pay === true) {
      const r = await payOrder(store, notifier, o, { openid: o.openid })
      if (!r.ok) return fail(r.reason)
    }
    return { ok: true, err_msg: 'get_brand_wcpay_request:ok' }
  })
}

function identity(store: FakeStore) {
  const p = store.platform
  return {
    mode: p.mode,
    publicKeyId: p.publicKeyId,
    publicKey: p.key.publicKey.export({ type: 'spki', format: 'pem' }),
    certificates: p.certs.map((c) => ({ serial: c.serial, pem: c.pem })),
  }
}
