/**
 * /l/<link_id>, a payment link's page. GET only shows what the link asks for: a chat app's link
 * preview or a crawler must not make sessions. The buyer's POST (the page's form token, and the
 * amount when the link asks for one) makes a fresh session and sends the buyer to its checkout.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { NotFound } from '../../domain/errors.js'
import type { LinkUnavailable } from '../../domain/payment-links.js'
import { displayAmount, type Currency } from '../../domain/money.js'
import type { Deps } from '../../services/deps.js'
import { linkForPage, sessionFromLink, type LinkForPage } from '../../services/payment-link-sessions.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageContext } from '../context.js'
import { FormTokenInvalid } from '../errors.js'
import { checkFormToken, formToken } from '../security.js'
import type { PageContext } from '../views/layout.js'
import { MessagePage } from '../views/message.js'
import { LinkPage } from './view.js'

type Id = { Params: { id: string } }

const UNAVAILABLE_STATUS: Record<LinkUnavailable, number> = { inactive: 410, expired: 410, used_up: 410, busy: 409 }

const field = (body: unknown, name: string): string | undefined => {
  const v = (body as Record<string, unknown> | undefined)?.[name]
  return typeof v === 'string' ? v : undefined
}

export const linkRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const tokenKey = deps.box.derive('page-csrf')

  async function found(id: string): Promise<LinkForPage> {
    const page = await linkForPage(deps, id)
    if (!page) throw new NotFound()
    return page
  }

  function unavailablePage(reply: FastifyReply, ctx: PageContext, page: LinkForPage, why: LinkUnavailable, langSwitch: boolean) {
    const body = why === 'busy' ? ctx.t('link.busyBody') : ctx.t('link.askMerchant', { merchant: page.merchantName })
    return sendHtml(reply, UNAVAILABLE_STATUS[why], MessagePage({ ...ctx, v: { title: ctx.t(`link.${why}`), body, langSwitch, testMode: page.link.mode === 'test' } }))
  }

  function linkPage(reply: FastifyReply, status: number, ctx: PageContext, { link, merchantName, branding, asksEmail }: LinkForPage,
    typed: { amount: string; email: string; bad: 'amount' | 'email' } | null) {
    const currency = link.currency as Currency
    const range = link.minAmount !== null && link.maxAmount !== null
      ? { min: displayAmount(link.minAmount, currency, ctx.locale), max: displayAmount(link.maxAmount, currency, ctx.locale) }
      : null
    return sendHtml(reply, status, LinkPage({
      ...ctx,
      v: {
        linkId: link.id,
        testMode: link.mode === 'test',
        merchantName,
        brand: branding,
        description: link.description,
        currency,
        amount: link.amount === null ? null : displayAmount(link.amount, currency, ctx.locale),
        range,
        typed: typed?.amount ?? null,
        badAmount: typed?.bad === 'amount',
        email: asksEmail ? { typed: typed?.email ?? '', bad: typed?.bad === 'email' } : null,
        formToken: formToken(tokenKey, link.id),
      },
    }))
  }

  app.get<Id>('/:id', async (req, reply) => {
    const page = await found(req.params.id)
    const ctx = pageContext(req, reply)
    if (page.unavailable) return unavailablePage(reply, ctx, page, page.unavailable, true)
    return linkPage(reply, 200, ctx, page, null)
  })

  app.post<Id>('/:id', async (req, reply) => {
    const page = await found(req.params.id)
    if (!checkFormToken(tokenKey, page.link.id, field(req.body, 'token'))) throw new FormTokenInvalid()
    const ctx = pageContext(req, reply)
    const amount = field(req.body, 'amount')
    const email = field(req.body, 'email')
    const outcome = await sessionFromLink(deps, page, { amount, email, locale: ctx.locale, address: req.ip })
    if ('sessionId' in outcome) return seeOther(reply, `/c/${outcome.sessionId}`)
    if ('badAmount' in outcome || 'badEmail' in outcome) {
      return linkPage(reply, 400, ctx, page, { amount: amount ?? '', email: email ?? '', bad: 'badAmount' in outcome ? 'amount' : 'email' })
    }
    if ('rateLimited' in outcome) {
      reply.header('Retry-After', '60')
      return sendHtml(reply, 429, MessagePage({ ...ctx, v: { title: ctx.t('link.rateLimited'), body: ctx.t('link.rateLimitedBody'), langSwitch: false } }))
    }
    return unavailablePage(reply, ctx, page, outcome.unavailable, false)
  })
}

