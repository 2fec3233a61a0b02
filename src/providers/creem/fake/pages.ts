/**
 * The fake's customer side: the hosted checkout page (`checkout_url`, /test/checkout/<prod>/<ch>,
 * as in Creem's test mode) with a card form that follows the published test cards, and an index of
 * open checkouts at /__fake/creem for someone playing the customer by hand.
 */
import type { FastifyInstance } from 'fastify'
import { formatAmount, isCurrency } from '../../../domain/money.js'
import { payCheckout } from './actions.js'
import type { Notifier } from './notify.js'
import type { Checkout, FakeStore } from './store.js'

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
const money = (amount: number, currency: string) => (isCurrency(currency) ? formatAmount(amount, currency, 'en') : `${amount} ${currency}`)

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#111}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.6rem;font:inherit}
button{margin-top:1rem;width:100%;padding:.75rem;font:inherit;background:#111;color:#fff;border:0;border-radius:.4rem}
.error{color:#a00}.note{color:#555;font-size:.9rem}.test{background:#fde68a;padding:.25rem .5rem;border-radius:.25rem}</style>
</head><body>${body}</body></html>`

function checkoutPage(store: FakeStore, c: Checkout, error?: string) {
  const product = store.products.get(c.productId)!
  const total = money(store.unitPrice(c) * c.units, product.currency)
  if (c.status === 'expired') return page('Checkout expired', '<h1>This checkout has expired</h1>')
  if (c.status === 'completed') return page('Paid', `<h1>Payment received</h1><p>${esc(total)} was paid.</p>`)
  return page(`Pay ${total}`, `<p><span class="test">TEST MODE</span> Creem (local fake)</p>
<h1>${esc(product.name)}</h1><p class="amount">${esc(total)}</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/test/checkout/${esc(product.id)}/${esc(c.id)}">
<label for="email">Email</label><input id="email" name="email" type="email" value="${esc(c.customerEmail ?? 'customer@example.com')}" required>
<label for="card">Card number</label><input id="card" name="card" inputmode="numeric" autocomplete="off" placeholder="4242 4242 4242 4242" required>
<label for="expiry">Expiry</label><input id="expiry" name="expiry" placeholder="12/34" value="12/34">
<label for="cvc">CVC</label><input id="cvc" name="cvc" placeholder="123" value="123">
<label for="name">Name on card</label><input id="name" name="name" value="Test Customer">
<button type="submit">Pay ${esc(total)}</button>
</form>
<p class="note">Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; …9995 insufficient funds; …0127 wrong CVC; …0069 expired.</p>`)
}

export function registerPages(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string) {
  const find = (prod: string, ch: string) => {
    const c = store.checkouts.get(ch)
    return c && c.productId === prod ? c : undefined
  }

  app.get<{ Params: { prod: string; ch: string } }>('/test/checkout/:prod/:ch', async (req, reply) => {
    const c = find(req.params.prod, req.params.ch)
    if (!c) return reply.code(404).type('text/html').send(page('Not found', '<h1>Checkout not found</h1>'))
    return reply.type('text/html; charset=utf-8').send(checkoutPage(store, c))
  })

  app.post<{ Params: { prod: string; ch: string }; Body: Record<string, string> }>('/test/checkout/:prod/:ch', async (req, reply) => {
    const c = find(req.params.prod, req.params.ch)
    if (!c) return reply.code(404).type('text/html').send(page('Not found', '<h1>Checkout not found</h1>'))
    const b = req.body ?? {}
    const r = await payCheckout(store, notifier, baseUrl(), c, { card: b.card, email: b.email, name: b.name })
    // The form again with the card's error, as a checkout page does (a 200: the page itself is fine).
    if (!r.ok) return reply.type('text/html; charset=utf-8').send(checkoutPage(store, c, r.reason))
    if (r.redirect) return reply.code(302).header('location', r.redirect).send()
    return reply.type('text/html; charset=utf-8').send(checkoutPage(store, c))
  })

  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send())

  app.get('/__fake/creem', async (_req, reply) => {
    const open = [...store.checkouts.values()].filter((c) => c.status === 'pending')
    const rows = open.map((c) => {
      const p = store.products.get(c.productId)!
      return `<li><a href="/test/checkout/${esc(p.id)}/${esc(c.id)}">${esc(c.id)}</a> ${esc(money(store.unitPrice(c) * c.units, p.currency))}${c.requestId ? ` (${esc(c.requestId)})` : ''}</li>`
    })
    return reply.type('text/html; charset=utf-8').send(page('Fake Creem', `<h1>Fake Creem: open checkouts</h1>${rows.length ? `<ul>${rows.join('')}</ul>` : '<p>None.</p>'}`))
  })
}
