/**
 * Test knobs under /__fake/alipay/… (docs/providers.md#testing-offline-till-fake-alipay), a prefix the real Alipay never
 * has, so adapter code cannot come to depend on them; the ones every fake has are in
 * fake-kit/knobs.ts. JSON in, JSON out.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readForcedError } from '../../fake-kit/forced-errors.js'
import { bad, bodyOf, registerSharedKnobs, type Body } from '../../fake-kit/knobs.js'
import { registerStatementKnobs } from '../../fake-kit/statement-knobs.js'
import { createTrade, expireIfDue, expireTrade, failTrade, finishTrade, payTrade, type ActionResult } from './actions.js'
import { ROUTES } from './gateway.js'
import type { Notifier } from './notify.js'
import { randomDigits, type FakeStore, type Trade } from './store.js'
import { queryView } from './views.js'
import { beijingText, yuan } from './wire.js'

const P = '/__fake/alipay'
const ERROR_ROUTES = [...Object.values(ROUTES), '*']

/** A trade named by out_trade_no (and app_id when several apps use the same number), trade_no, qr_code or cashier_id. */
function locateTrade(store: FakeStore, b: Body): Trade | undefined {
  if (typeof b.out_trade_no === 'string') return store.findTrade((t) => t.outTradeNo === b.out_trade_no && (b.app_id === undefined || t.appId === b.app_id))
  if (typeof b.trade_no === 'string') return store.findTrade((t) => t.tradeNo === b.trade_no)
  if (typeof b.qr_code === 'string') return store.findTrade((t) => t.qrCode === b.qr_code)
  if (typeof b.cashier_id === 'string') return store.findTrade((t) => t.cashierId === b.cashier_id)
  return undefined
}

/** The fake's full record of a trade: the query view plus what the merchant sent and its refunds. */
function tradeRecord(store: FakeStore, t: Trade) {
  return {
    ...(t.exists ? queryView(t) : { out_trade_no: t.outTradeNo, trade_status: null, total_amount: yuan(t.total) }),
    exists: t.exists, app_id: t.appId, product: t.product, subject: t.subject, body: t.body ?? null, qr_code: t.qrCode ?? null,
    cashier_id: t.cashierId ?? null, notify_url: t.notifyUrl ?? null, return_url: t.returnUrl ?? null, quit_url: t.quitUrl ?? null,
    time_expire: beijingText(t.expiresAtMs), failed_tries: t.failedTries, refunded: yuan(t.refunded),
    refunds: store.refundsOf(t).map((r) => ({ out_request_no: r.outRequestNo, refund_amount: yuan(r.amount), refund_reason: r.reason ?? null, gmt_refund_pay: beijingText(r.gmtRefundMs) })),
  }
}

function readForced(b: Body) {
  const subCode = String(b.sub_code ?? 'isp.unknow-error')
  const code = String(b.code ?? (subCode.startsWith('ACQ.') ? '40004' : subCode.startsWith('isv.') ? '40002' : '20000'))
  // status 200 (the default) answers with Alipay's error; another status fails the HTTP exchange itself.
  return { ...readForcedError({ status: 200, ...b }, '系统繁忙'), code, subCode, subMsg: String(b.sub_msg ?? b.message ?? '系统繁忙') }
}

export function registerControl(app: FastifyInstance, store: FakeStore, notifier: Notifier) {
  registerSharedKnobs(app, P, store, notifier, { routes: ERROR_ROUTES, read: readForced })
  // The trade bill has no currency column (CNY only) and lists refunds only once they succeeded.
  registerStatementKnobs(app, P, store.statementKnobs, {
    refundStatuses: ['REFUND_SUCCESS'],
    newProviderRef: () => store.newTradeNo(),
    newRef: () => `ext${randomDigits(20)}`,
    currencies: ['CNY'],
  })

  const act = (fn: (t: Trade, b: Body) => ActionResult | Promise<ActionResult>) => async (req: FastifyRequest, reply: FastifyReply) => {
    const b = bodyOf(req.body)
    const t = locateTrade(store, b)
    if (!t) return bad(reply, 404, 'no such order')
    expireIfDue(store, notifier, t)
    const r = await fn(t, b)
    return r.ok ? { ok: true, order: tradeRecord(store, r.trade) } : bad(reply, 409, r.reason)
  }

  /** The buyer scans the QR code or logs in on the cashier: the trade exists (WAIT_BUYER_PAY). */
  app.post(`${P}/scan`, act((t) => createTrade(store, notifier, t)))
  /** The buyer pays (scanning or logging in first if need be); `at: "close"` pays the moment a close request arrives. */
  app.post(`${P}/pay`, act((t, b) => {
    if (b.at !== 'close') return payTrade(store, notifier, t)
    t.payOnClose = true
    return { ok: true, trade: t }
  }))
  app.post(`${P}/fail`, act((t) => failTrade(store, notifier, t)))
  app.post(`${P}/expire`, act((t) => expireTrade(store, notifier, t)))
  /** The refund period ends: TRADE_FINISHED, notified; refunds are refused from then on. */
  app.post(`${P}/finish`, act((t) => finishTrade(store, notifier, t)))

  /** The next notification goes out changed: `fields` replaced after signing (a forgery) or before (`resign`: genuine but disagreeing), or with a broken signature. */
  app.post(`${P}/tamper`, async (req, reply) => {
    const b = bodyOf(req.body)
    const fields = b.fields ?? {}
    if (typeof fields !== 'object' || Object.values(fields).some((v) => typeof v !== 'string')) return bad(reply, 400, 'fields must map names to strings')
    store.knobs.tamperNext = { fields, resign: b.resign === true, badSignature: b.badSignature === true }
    return { ok: true, tamper: store.knobs.tamperNext }
  })

  /** Sends a trade's notification again (its current state), to its notify_url or to `url`. */
  app.post(`${P}/resend`, async (req, reply) => {
    const b = bodyOf(req.body)
    const t = locateTrade(store, b)
    if (!t?.exists || !(t.notifyUrl || b.url)) return bad(reply, 404, 'no created order with a notify_url')
    await notifier.send(t, 'resend', typeof b.url === 'string' ? b.url : t.notifyUrl)
    return { ok: true }
  })

  /** Moves the fake's time forward by `seconds` (or to the next pending job with `next: true`) and runs what is due. */
  app.post(`${P}/advance`, async (req, reply) => {
    const b = bodyOf(req.body)
    const next = store.jobs.nextDueMs()
    const ms = b.next === true ? Math.max(0, (next ?? store.clock().getTime()) - store.clock().getTime()) : Number(b.seconds) * 1000
    if (!(ms >= 0)) return bad(reply, 400, 'seconds must be a number ≥ 0, or next: true')
    store.advance(ms)
    return { advancedMs: ms, ran: await store.jobs.runDue(), pending: store.jobs.pending() }
  })

  app.post(`${P}/settings`, async (req) => {
    const b = bodyOf(req.body)
    const k = store.knobs
    if (typeof b.strictAmounts === 'boolean') k.strictAmounts = b.strictAmounts
    if (typeof b.notifyRefundsAndClosings === 'boolean') k.notifyRefundsAndClosings = b.notifyRefundsAndClosings
    if (b.maxTimestampSkewSec === null || typeof b.maxTimestampSkewSec === 'number') k.maxTimestampSkewSec = b.maxTimestampSkewSec
    if (typeof b.refundQueryDelayMs === 'number') k.refundQueryDelayMs = b.refundQueryDelayMs
    return { ok: true, strictAmounts: k.strictAmounts, notifyRefundsAndClosings: k.notifyRefundsAndClosings, maxTimestampSkewSec: k.maxTimestampSkewSec, refundQueryDelayMs: k.refundQueryDelayMs }
  })

  /** Alipay's side of both key modes: its public key, its certificate and the root bundle, with their serials. */
  app.get(`${P}/identity`, async () => identity(store))

  app.get<{ Params: { no: string }; Querystring: { app_id?: string } }>(`${P}/orders/:no`, async (req, reply) => {
    const t = locateTrade(store, { out_trade_no: req.params.no, app_id: req.query.app_id })
    if (!t) return bad(reply, 404, 'no such order')
    expireIfDue(store, notifier, t)
    return tradeRecord(store, t)
  })
}

export function identity(store: FakeStore) {
  return {
    alipayPublicKey: store.alipayKey.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    alipayCertificate: store.pki.alipayCertificate,
    alipayRootCertificate: store.pki.rootBundle,
    alipayCertSn: store.pki.alipayCertSn,
    alipayRootCertSn: store.pki.rootCertSn,
  }
}
