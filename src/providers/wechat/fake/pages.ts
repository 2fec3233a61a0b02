/**
 * The fake plays the customer and WeChat's own pages: a "scan" page that pays a Native code_url,
 * the H5 cashier (/__fake/h5/checkmweb) that returns to redirect_url, and the official-account
 * OAuth (snsapi_base) that hands a JSAPI page an openid. Plain HTML forms, no script needed.
 */
import type { FastifyInstance } from 'fastify'
import { randomAlnum } from './crypto.js'
import { failOrder, payOrder } from './actions.js'
import { locateOrder } from './control.js'
import type { Notifier } from './notify.js'
import type { FakeStore, Order } from './store.js'

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const yuan = (fen: number) => `¥${(fen / 100).toFixed(2)}`
/** What the payer sees: the listed amount, and for a cross-border order the CNY it costs at the day's rate. */
const price = (o: Order) => o.service !== 'cross_border' ? yuan(o.total)
  : `${o.currency} ${o.currency === 'JPY' ? o.total : (o.total / 100).toFixed(2)}`

function page(title: string, body: string) {
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${esc(title)}</title><link rel="icon" href="data:,"><style>body{font:16px system-ui;max-width:28rem;margin:2rem auto;padding:0 1rem}` +
    `button{font:inherit;padding:.5rem 1rem;margin:.25rem}code{word-break:break-all}</style></head><body>` +
    `<p><small>Fake WeChat Pay (Till) — not a real payment</small></p><h1>${esc(title)}</h1>${body}</body></html>`
}

function orderCard(o: Order) {
  return `<p id="amount">${price(o)}</p>${o.payerTotal !== undefined ? `<p id="payer-total">${yuan(o.payerTotal)}</p>` : ''}<p id="description">${esc(o.description)}</p>` +
    `<p><small>out_trade_no <code>${esc(o.outTradeNo)}</code> · ${esc(o.state)}</small></p>`
}

export function registerPages(app: FastifyInstance, store: FakeStore, notifier: Notifier) {
  /** Unused OAuth codes and the openid each stands for, per appid. */
  const codes = new Map<string, { appId: string; openid: string }>()
  const html = (reply: any, status: number, s: string) => reply.code(status).type('text/html; charset=utf-8').send(s)

  app.get('/__fake/wechat', async (_req, reply) => {
    const open = [...store.orders.values()].map((o) => store.order(o.mchId, o.outTradeNo)!).filter((o) => o.state === 'NOTPAY' && o.codeUrl)
    const items = open.map((o) => `<li><a href="/__fake/wechat/scan?code_url=${encodeURIComponent(o.codeUrl!)}">${price(o)} ${esc(o.description)}</a></li>`).join('')
    return html(reply, 200, page('Scan a QR code', `<p>Open Native orders (what a phone would scan):</p><ul>${items || '<li>none</li>'}</ul>` +
      `<form method="get" action="/__fake/wechat/scan"><label>code_url <input name="code_url" size="40"></label><button>Scan</button></form>`))
  })

  app.get<{ Querystring: { code_url?: string } }>('/__fake/wechat/scan', async (req, reply) => {
    const o = locateOrder(store, { code_url: req.query.code_url })
    if (!o) return html(reply, 404, page('Unknown code', '<p>This QR code is not an order of this fake.</p>'))
    const form = o.state === 'NOTPAY'
      ? `<form method="post"><input type="hidden" name="code_url" value="${esc(o.codeUrl)}"><button name="action" value="pay" id="pay">Pay</button>` +
        `<button name="action" value="fail" id="fail">Fail</button></form>`
      : ''
    return html(reply, 200, page('Confirm payment', orderCard(o) + form))
  })

  app.post('/__fake/wechat/scan', async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string>
    const o = locateOrder(store, { code_url: b.code_url })
    if (!o) return html(reply, 404, page('Unknown code', '<p>This QR code is not an order of this fake.</p>'))
    const r = b.action === 'fail' ? failOrder(store, o) : await payOrder(store, notifier, o)
    const title = !r.ok ? 'Not paid' : b.action === 'fail' ? 'Payment failed' : 'Paid'
    return html(reply, r.ok ? 200 : 409, page(title, orderCard(store.order(o.mchId, o.outTradeNo)!) + (r.ok ? '' : `<p>${esc(r.reason)}</p>`)))
  })

  // The H5 cashier. h5_url is valid for 5 minutes at WeChat; the fake does not enforce that.
  app.get<{ Querystring: Record<string, string> }>('/__fake/h5/checkmweb', async (req, reply) => {
    const o = locateOrder(store, { prepay_id: req.query.prepay_id })
    if (!o || o.tradeType !== 'MWEB') return html(reply, 404, page('Unknown order', '<p>No H5 order with this prepay_id.</p>'))
    const hidden = ['prepay_id', 'package', 'redirect_url'].map((k) => `<input type="hidden" name="${k}" value="${esc(req.query[k])}">`).join('')
    const form = o.state === 'NOTPAY' ? `<form method="post">${hidden}<button name="action" value="pay" id="pay">Pay</button><button name="action" value="cancel" id="cancel">Cancel</button></form>` : ''
    return html(reply, 200, page('WeChat Pay', orderCard(o) + form))
  })

  app.post('/__fake/h5/checkmweb', async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string>
    const o = locateOrder(store, { prepay_id: b.prepay_id })
    if (!o || o.tradeType !== 'MWEB') return html(reply, 404, page('Unknown order', '<p>No H5 order with this prepay_id.</p>'))
    if (b.action === 'pay') await payOrder(store, notifier, o)
    // WeChat sends the browser back whether or not the customer paid; the merchant page must ask.
    if (b.redirect_url) return reply.redirect(b.redirect_url, 302)
    return html(reply, 200, page(b.action === 'pay' ? 'Paid' : 'Canceled', orderCard(store.order(o.mchId, o.outTradeNo)!)))
  })

  // open.weixin.qq.com's snsapi_base: silent, straight back to redirect_uri with a one-time code.
  app.get<{ Querystring: Record<string, string> }>('/connect/oauth2/authorize', async (req, reply) => {
    const q = req.query
    const known = [...store.merchants.values()].some((m) => m.appIds.includes(q.appid))
    if (!known || q.response_type !== 'code' || q.scope !== 'snsapi_base' || !q.redirect_uri || !URL.canParse(q.redirect_uri)) {
      return html(reply, 400, page('OAuth error', '<p>appid, redirect_uri, response_type=code and scope=snsapi_base are required.</p>'))
    }
    const code = randomAlnum(32)
    codes.set(code, { appId: q.appid, openid: typeof q.openid === 'string' && q.openid ? q.openid : `o${randomAlnum(27)}` })
    const back = new URL(q.redirect_uri)
    back.searchParams.set('code', code)
    back.searchParams.set('state', q.state ?? '')
    return reply.redirect(back.toString(), 302)
  })

  // api.weixin.qq.com's code exchange: a code works once, for the appid it was issued to.
  app.get<{ Querystring: Record<string, string> }>('/sns/oauth2/access_token', async (req) => {
    const q = req.query
    const entry = codes.get(q.code)
    if (!entry || entry.appId !== q.appid || q.grant_type !== 'authorization_code' || !q.secret) return { errcode: 40029, errmsg: 'invalid code' }
    codes.delete(q.code)
    return { access_token: randomAlnum(64), expires_in: 7200, refresh_token: randomAlnum(64), openid: entry.openid, scope: 'snsapi_base' }
  })
}
