/**
 * `/gateway.do`, the OpenAPI v2 gateway, as Alipay's SDKs call it: the common parameters in the
 * URL, the rest (biz_content) in a form body or the URL too, GET or POST. An API call is answered
 * with signed JSON (text/html;charset=utf-8 and a trace_id header, as the real gateway sends);
 * page.pay and wap.pay send the browser on to the cashier, or show the gateway's error page.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { withForcedError } from '../../fake-kit/forced-errors.js'
import { responseKey } from '../sign.js'
import { tradeApi } from './api.js'
import { billDownloadUrl } from './bill-api.js'
import { authenticate, checkMethod, GatewayError, isPageMethod, type ApiMethod, type PageMethod } from './checks.js'
import type { Notifier } from './notify.js'
import { errorPage } from './pages.js'
import type { FakeStore, ForcedError, LoggedRequest } from './store.js'
import { answerBody, CODE_MSG } from './wire.js'

/** The errors knob's route names, by method. */
export const ROUTES: Record<ApiMethod | PageMethod, string> = {
  'alipay.trade.precreate': 'precreate',
  'alipay.trade.query': 'query',
  'alipay.trade.close': 'close',
  'alipay.trade.refund': 'refund',
  'alipay.trade.fastpay.refund.query': 'refundQuery',
  'alipay.data.dataservice.bill.downloadurl.query': 'billDownloadUrl',
  'alipay.trade.page.pay': 'pagePay',
  'alipay.trade.wap.pay': 'wapPay',
}

/** A forced error with an HTTP status other than 200: the gateway itself failing, no Alipay answer. */
class HttpFailure extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`)
  }
}

const forced = (e: ForcedError) => (e.status !== 200 ? new HttpFailure(e.status) : new GatewayError(e.code, e.subCode, e.subMsg))

/** The URL's parameters, then the form body's. */
function readParams(req: FastifyRequest): Record<string, string> {
  const target = req.raw.url ?? req.url
  const params: Record<string, string> = {}
  const q = target.indexOf('?')
  if (q >= 0) for (const [k, v] of new URLSearchParams(target.slice(q + 1))) params[k] = v
  const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
  if (form && typeof req.body === 'string') for (const [k, v] of new URLSearchParams(req.body)) params[k] = v
  return params
}

export function registerGateway(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))
  const { api: trade, place } = tradeApi(store, notifier)
  const api = { ...trade, 'alipay.data.dataservice.bill.downloadurl.query': billDownloadUrl(store, baseUrl) }

  const sendJson = (reply: FastifyReply, body: string) =>
    reply.code(200).headers({ 'content-type': 'text/html;charset=utf-8', trace_id: randomBytes(15).toString('hex') }).send(body)

  const gateway = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = readParams(req)
    const log: LoggedRequest = {
      httpMethod: req.method, path: (req.raw.url ?? req.url).split('?')[0], method: params.method, params, verified: null,
      answer: { code: '' }, atMs: store.clock().getTime(),
    }
    store.requests.push(log)
    let method: ApiMethod | PageMethod | undefined
    try {
      method = checkMethod(params)
      const app = authenticate(store, params, (ok) => (log.verified = ok))
      const m = method
      if (isPageMethod(m)) {
        const t = await withForcedError(store.knobs.errors, ROUTES[m], forced, () => place(app, m === 'alipay.trade.page.pay' ? 'page' : 'wap', params))
        log.answer = 'page'
        return reply.redirect(`${baseUrl()}/__fake/alipay/cashier/${t.cashierId}`, 302)
      }
      const inner = await withForcedError(store.knobs.errors, ROUTES[m], forced, () => api[m](app, params))
      log.answer = { code: inner.code! }
      return sendJson(reply, answerBody(store, app, responseKey(m), inner))
    } catch (e) {
      if (e instanceof HttpFailure) {
        log.answer = { code: `HTTP ${e.status}` }
        return reply.code(e.status).type('text/html; charset=utf-8').send('<html><body>Service Unavailable</body></html>')
      }
      if (!(e instanceof GatewayError)) throw e
      log.answer = { code: e.code, sub_code: e.subCode }
      if (e.o.note) log.note = e.o.note
      if (method && isPageMethod(method)) return errorPage(reply, e)
      const inner = { code: e.code, msg: CODE_MSG[e.code] ?? 'Business Failed', sub_code: e.subCode, sub_msg: e.subMsg, ...e.o.extra }
      const key = e.o.errorResponse || !method ? 'error_response' : responseKey(method)
      return sendJson(reply, answerBody(store, e.o.unsigned ? null : (store.apps.get(params.app_id) ?? null), key, inner))
    }
  }
  app.get('/gateway.do', gateway)
  app.post('/gateway.do', gateway)
}
