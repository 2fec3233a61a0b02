/**
 * A buyer on a payment link's page (/l/{id}) asks for a session: the link's amount (or the one typed),
 * description and metadata, and its id, on a fresh session. Under the link's row lock the link is
 * checked against its paid sessions and its open ones, so two buyers never both get the last payment.
 */
import { isEmailAddress } from '../domain/customer-email.js'
import { ID_PATTERN } from '../domain/ids.js'
import type { Locale } from '../domain/locales.js'
import { buyerAmount, linkUnavailable, type LinkUnavailable } from '../domain/payment-links.js'
import type { Currency } from '../domain/money.js'
import * as links from '../store/repos/payment-links.js'
import type { PaymentLinkRow } from '../store/repos/payment-links.js'
import { countUse } from '../store/repos/rate-limits.js'
import { getMerchant } from '../store/repos/merchants.js'
import { insertSessionRow } from '../store/repos/sessions.js'
import { sessionRow } from './sessions.js'
import type { Deps } from './deps.js'
import { brandingOf, type Branding } from './merchant-settings.js'

const LINK_ID = ID_PATTERN('plink')

/** A session from a link lasts 30 minutes: while open it holds one of a limited link's payments. */
export const LINK_SESSION_SECONDS = 1800
/** Sessions one address may make through payment links per minute, per merchant. */
export const LINK_SESSIONS_PER_MINUTE = 10
const WINDOW_MS = 60_000

export type LinkOutcome =
  | { sessionId: string }
  | { unavailable: LinkUnavailable }
  | { badAmount: true }
  | { badEmail: true }
  | { rateLimited: true }

/** What the buyer gave on the link's page, and the language the page spoke (the receipt's too). */
export interface LinkBuyer {
  amount?: string
  email?: string
  locale: Locale
  address: string
}

export interface LinkForPage {
  link: PaymentLinkRow
  unavailable: LinkUnavailable | null
  merchantName: string
  branding: Branding | null
  /** Whether the page asks for the buyer's email: only when a receipt would be sent to it. */
  asksEmail: boolean
}

/** The link as its page shows it; null when there is no such link. */
export async function linkForPage(deps: Deps, id: string): Promise<LinkForPage | null> {
  if (!LINK_ID.test(id)) return null
  const link = await links.getPaymentLinkUnscoped(deps.db, id)
  if (!link) return null
  const now = deps.clock()
  const open = link.maxPayments === null ? 0 : await links.openLinkSessions(deps.db, link.id, now)
  const merchant = await getMerchant(deps.db, link.merchantId)
  const branding = merchant ? brandingOf(merchant) : null
  const asksEmail = Boolean(deps.config.smtpUrl && merchant?.receiptEmails)
  return { link, unavailable: linkUnavailable(link, open, now), merchantName: branding?.name ?? '', branding, asksEmail }
}

export async function sessionFromLink(deps: Deps, page: LinkForPage, buyer: LinkBuyer): Promise<LinkOutcome> {
  const { link } = page
  const amount = buyerAmount(link, link.currency as Currency, buyer.amount)
  if (amount === null) return { badAmount: true }
  const email = page.asksEmail ? buyer.email?.trim() || undefined : undefined
  if (email !== undefined && !isEmailAddress(email)) return { badEmail: true }
  const address = buyer.address
  const now = deps.clock()
  const window = now.getTime() - (now.getTime() % WINDOW_MS)
  if (await countUse(deps.db, `plink:${link.merchantId}:${address}`, window) > LINK_SESSIONS_PER_MINUTE) return { rateLimited: true }
  const scope = { merchantId: link.merchantId, mode: link.mode }
  const row = await sessionRow(deps, scope, {
    amount,
    currency: link.currency,
    description: link.description ?? undefined,
    metadata: link.metadata,
    providerHints: link.providerHints ?? undefined,
    expiresInSeconds: LINK_SESSION_SECONDS,
    locale: buyer.locale,
    customerEmail: email,
  }, link.id)
  return deps.db.transaction(async (tx): Promise<LinkOutcome> => {
    const locked = await links.getPaymentLinkUnscoped(tx, link.id, true)
    if (!locked) return { unavailable: 'inactive' }
    const open = locked.maxPayments === null ? 0 : await links.openLinkSessions(tx, link.id, deps.clock())
    const unavailable = linkUnavailable(locked, open, deps.clock())
    if (unavailable) return { unavailable }
    await insertSessionRow(tx, row)
    return { sessionId: row.id }
  })
}
