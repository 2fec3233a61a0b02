/**
 * The fake plays the buyer and Alipay's own pages: the cashier that page.pay and wap.pay lead to
 * (log in, pay, fail, cancel; after paying the browser goes to return_url with Alipay's signed
 * return parameters), a "scan" page that plays the phone for precreate's QR code, a list of open
 * orders, and the gateway's error page. Plain HTML forms, no script needed.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { createTrade, expireIfDue, failTrade, payTrade } from './actions.js'
import type { GatewayError } from './checks.js'
import type { Notifier } from './notify.js'
import type { FakeStore, Trade } from './store.js'
import { returnParams } from './views.js'
import { yuan } from './wire.js'

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(title: string, body: string) {
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${esc(title)}</title><link rel="icon" href="data:,"><style>body{font:16px system-ui;max-width:28rem;margin:2rem auto;padding:0 1rem}` +
    `button{font:inherit;padding:.5rem 1rem;margin:.25rem}code{word-break:break-all}</style></head><body>` +
    `<p><small>Fake Alipay (Till) — not a real payment</small></p><h1>${esc(title)}</h1>${body}</body></html>`
}

const html = (reply: FastifyReply, status: number, s: string) => reply.code(status).type('text/html; charset=utf-8').send(s)

function tradeCard(t: Trade) {
  return `<p id="amount">¥${yuan(t.total)}</p><p id="subject">${esc(t.subject)}</p>` +
    `<p><small>out_trade_no <code>${esc(t.outTradeNo)}</code> · <span id="status">${t.exists ? esc(t.status) : 'not yet created'}</span></small></p>`
}

/** Alipay's page when a page.pay or wap.pay request is refused: the code without its isv. prefix, and the reason. */
export function errorPage(reply: FastifyReply, e: GatewayError) {
  return html(reply, 200, page('支付宝 — 错误', `<p>调试错误，请回到请求来源地，重新发起请求。</p>` +
    `<p>错误代码 <code id="error-code">${esc(e.subCode.replace(/^isv\./, ''))}</code> 错误原因: <span id="error-reason">${esc(e.subMsg)}</span></p>`))
}

/** return_url with Alipay's signed return parameters added. */
function returnUrl(store: FakeStore, t: Trade): string | null {
  if (!t.returnUrl) return null
  const u = new URL(t.returnUrl)
  for (const [k, v] of Object.entries(returnParams(store, t))) u.searchParams.set(k, v)
  return u.toString()
}

export function registerPages(app: FastifyInstance, store: FakeStore, notifier: Notifier) {
  const P = '/__fake/alipay'
  const byCashier = (id: string) => store.findTrade((t) => t.cashierId === id)
  const byQr = (qr: string | undefined) => (qr ? store.findTrade((t) => t.qrCode === qr) : undefined)
  const open = () => [...store.trades.values()].filter((t) => (expireIfDue(store, notifier, t), t.status === 'WAIT_BUYER_PAY'))

  app.get(P, async (_req, reply) => {
    const item = (t: Trade) => t.qrCode
      ? `<li><a href="${P}/qr?qr_code=${encodeURIComponent(t.qrCode)}">¥${yuan(t.total)} ${esc(t.subject)}</a> (QR code)</li>`
      : `<li><a href="${P}/cashier/${t.cashierId}">¥${yuan(t.total)} ${esc(t.subject)}</a> (${t.product === 'wap' ? 'wap' : 'page'} cashier)</li>`
    return html(reply, 200, page('Open orders', `<ul>${open().map(item).join('') || '<li>none</li>'}</ul>` +
      `<form method="get" action="${P}/qr"><label>qr_code <input name="qr_code" size="40"></label><button>Scan</button></form>`))
  })

  const buttons = (t: Trade, cancel: boolean) => t.status !== 'WAIT_BUYER_PAY' ? '' :
    `<form method="post"><button name="action" value="pay" id="pay">Pay</button>` +
    (t.exists ? '' : `<button name="action" value="login" id="login">Log in</button>`) +
    `<button name="action" value="fail" id="fail">Wrong password</button>` +
    (cancel ? `<button name="action" value="cancel" id="cancel">Cancel</button>` : '') + `</form>`

  // Scanning is what creates a precreate order's trade at Alipay, so this page, the phone's view, does.
  app.get<{ Querystring: { qr_code?: string } }>(`${P}/qr`, async (req, reply) => {
    const t = byQr(req.query.qr_code)
    if (!t) return html(reply, 404, page('Unknown code', '<p>This QR code is not an order of this fake.</p>'))
    const created = createTrade(store, notifier, t)
    return html(reply, 200, page('支付宝 — 确认付款', tradeCard(t) + (created.ok ? buttons(t, false) : `<p>${esc(created.reason)}</p>`)))
  })

  app.post<{ Querystring: { qr_code?: string }; Body: Record<string, string> }>(`${P}/qr`, async (req, reply) => {
    const t = byQr(req.query.qr_code ?? req.body?.qr_code)
    if (!t) return html(reply, 404, page('Unknown code', '<p>This QR code is not an order of this fake.</p>'))
    const r = req.body?.action === 'fail' ? failTrade(store, notifier, t) : await payTrade(store, notifier, t)
    const title = !r.ok ? 'Not paid' : req.body?.action === 'fail' ? 'Payment failed' : 'Paid'
    return html(reply, r.ok ? 200 : 409, page(title, tradeCard(t) + (r.ok ? buttons(t, false) : `<p>${esc(r.reason)}</p>`)))
  })

  app.get<{ Params: { id: string } }>(`${P}/cashier/:id`, async (req, reply) => {
    const t = byCashier(req.params.id)
    if (!t) return html(reply, 404, page('Unknown order', '<p>No cashier order with this id.</p>'))
    expireIfDue(store, notifier, t)
    const back = t.gmtPaymentMs !== undefined ? returnUrl(store, t) : null
    const closed = t.status === 'TRADE_CLOSED' && t.gmtPaymentMs === undefined ? '<p id="closed">交易已经关闭 (the order is closed)</p>' : ''
    return html(reply, 200, page('支付宝 收银台', tradeCard(t) + buttons(t, true) + closed + (back ? `<p><a id="back" href="${esc(back)}">Back to the merchant</a></p>` : '')))
  })

  app.post<{ Params: { id: string }; Body: Record<string, string> }>(`${P}/cashier/:id`, async (req, reply) => {
    const t = byCashier(req.params.id)
    if (!t) return html(reply, 404, page('Unknown order', '<p>No cashier order with this id.</p>'))
    const action = req.body?.action
    if (action === 'cancel') {
      // wap.pay's quit_url: where the buyer goes when leaving the cashier unpaid.
      if (t.quitUrl) return reply.redirect(t.quitUrl, 302)
      return html(reply, 200, page('Canceled', tradeCard(t)))
    }
    if (action === 'login') {
      const r = createTrade(store, notifier, t)
      if (!r.ok) return html(reply, 409, page('Not paid', tradeCard(t) + `<p>${esc(r.reason)}</p>`))
      return reply.redirect(`${P}/cashier/${t.cashierId}`, 303)
    }
    const r = action === 'fail' ? failTrade(store, notifier, t) : await payTrade(store, notifier, t)
    if (!r.ok) return html(reply, 409, page('Not paid', tradeCard(t) + `<p>${esc(r.reason)}</p>`))
    if (action === 'fail') return html(reply, 200, page('Payment failed', tradeCard(t) + '<p>Wrong password: try again.</p>' + buttons(t, true)))
    // Paid: Alipay takes the browser back to return_url with its signed return parameters.
    const back = returnUrl(store, t)
    return back ? reply.redirect(back, 302) : html(reply, 200, page('Paid', tradeCard(t)))
  })
}
