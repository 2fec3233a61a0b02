/**
 * The fake's buyer side: the hosted Checkout page (the session's `url`, /c/pay/<id>) with a card form
 * that follows Stripe's test cards, the 3-D Secure challenge page the 3184 card leads to, a Cancel
 * link back to cancel_url, and an index of open sessions at /__fake/stripe for playing the buyer by hand.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { formatAmount, isCurrency } from '../../../domain/money.js'
import { finishChallenge, payCard, type PayResult } from './actions.js'
import type { Notifier } from './notify.js'
import type { FakeStore, Session } from './store.js'

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
const money = (amount: number, currency: string) => (isCurrency(currency.toUpperCase()) ? formatAmount(amount, currency.toUpperCase() as 'USD', 'en') : `${amount} ${currency}`)

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1f36}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.6rem;font:inherit}
button{margin-top:1rem;width:100%;padding:.75rem;font:inherit;background:#635bff;color:#fff;border:0;border-radius:.4rem}
.error{color:#a00}.note{color:#555;font-size:.9rem}.test{background:#fde68a;padding:.25rem .5rem;border-radius:.25rem}</style>
</head><body>${body}</body></html>`

function sessionPage(s: Session, error?: string) {
  const total = money(s.amount, s.currency)
  if (s.status === 'expired') return page('Session expired', '<h1>This Checkout Session has expired</h1>')
  if (s.status === 'complete') return page('Paid', `<h1>Payment received</h1><p>${esc(total)} was paid.</p>`)
  const cancel = s.cancelUrl ? `<p><a id="cancel" href="${esc(s.cancelUrl)}">← Cancel and go back</a></p>` : ''
  return page(`Pay ${total}`, `<p><span class="test">TEST MODE</span> Stripe (local fake)</p>${cancel}
<h1>${esc(s.name)}</h1><p class="amount">${esc(total)}</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/c/pay/${esc(s.id)}">
<label for="email">Email</label><input id="email" name="email" type="email" value="buyer@example.com" required>
<label for="card">Card number</label><input id="card" name="card" inputmode="numeric" autocomplete="off" placeholder="1234 1234 1234 1234" required>
<label for="expiry">Expiration</label><input id="expiry" name="expiry" placeholder="MM / YY" value="12/34">
<label for="cvc">CVC</label><input id="cvc" name="cvc" placeholder="CVC" value="123">
<button type="submit">Pay</button>
</form>
<p class="note">Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; 4000 0027 6000 3184 asks for 3-D Secure.</p>`)
}

const challengePage = (s: Session) => page('Authenticate your payment', `<p><span class="test">TEST MODE</span> 3D Secure 2 test page</p>
<h1>Authenticate ${esc(money(s.amount, s.currency))}</h1>
<form method="post" action="/c/pay/${esc(s.id)}/3ds"><button name="outcome" value="complete" id="complete">Complete</button>
<button name="outcome" value="fail" id="fail" style="background:#a00">Fail</button></form>`)

export function registerPages(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string) {
  const notFound = (reply: FastifyReply) => reply.code(404).type('text/html').send(page('Not found', '<h1>Checkout Session not found</h1>'))
  const answer = (reply: FastifyReply, s: Session, r: PayResult) => {
    if ('challenge' in r) return reply.code(303).header('location', `/c/pay/${s.id}/3ds`).send()
    // The form again with the card's error, as Checkout does (a 200: the page itself is fine).
    if (!r.ok) return reply.type('text/html; charset=utf-8').send(sessionPage(s, r.reason))
    return reply.code(303).header('location', r.redirect).send()
  }

  app.get<{ Params: { id: string } }>('/c/pay/:id', async (req, reply) => {
    const s = store.sessions.get(req.params.id)
    return s ? reply.type('text/html; charset=utf-8').send(sessionPage(s)) : notFound(reply)
  })

  app.post<{ Params: { id: string }; Body: Record<string, string> }>('/c/pay/:id', async (req, reply) => {
    const s = store.sessions.get(req.params.id)
    if (!s) return notFound(reply)
    return answer(reply, s, await payCard(store, notifier, baseUrl(), s, req.body?.card))
  })

  app.get<{ Params: { id: string } }>('/c/pay/:id/3ds', async (req, reply) => {
    const s = store.sessions.get(req.params.id)
    if (!s) return notFound(reply)
    return s.challenge ? reply.type('text/html; charset=utf-8').send(challengePage(s)) : reply.code(303).header('location', `/c/pay/${s.id}`).send()
  })

  app.post<{ Params: { id: string }; Body: Record<string, string> }>('/c/pay/:id/3ds', async (req, reply) => {
    const s = store.sessions.get(req.params.id)
    if (!s) return notFound(reply)
    return answer(reply, s, await finishChallenge(store, notifier, baseUrl(), s, req.body?.outcome === 'complete'))
  })

  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send())

  app.get('/__fake/stripe', async (_req, reply) => {
    const open = [...store.sessions.values()].filter((s) => s.status === 'open')
    const rows = open.map((s) => `<li><a href="/c/pay/${esc(s.id)}">${esc(s.id)}</a> ${esc(money(s.amount, s.currency))}${s.clientReferenceId ? ` (${esc(s.clientReferenceId)})` : ''}</li>`)
    return reply.type('text/html; charset=utf-8').send(page('Fake Stripe', `<h1>Fake Stripe: open Checkout Sessions</h1>${rows.length ? `<ul>${rows.join('')}</ul>` : '<p>None.</p>'}`))
  })
}
