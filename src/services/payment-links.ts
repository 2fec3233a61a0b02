/** Payment links through the API and the console (docs/integrate.md#payment-links): create, read, list, change. */
import { checkMetadata } from '../domain/checkout-rules.js'
import { InvalidField, NotFound } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { CURRENCY_CODES, isCurrency } from '../domain/money.js'
import { checkLinkAmounts, checkMaxPayments } from '../domain/payment-links.js'
import type { PaymentLinkBodyT, PaymentLinkPatchT, PaymentLinkT } from '../domain/payment-link-resources.js'
import * as links from '../store/repos/payment-links.js'
import type { PaymentLinkRow } from '../store/repos/payment-links.js'
import type { Scope } from '../store/repos/scope.js'
import { sessionRow } from './sessions.js'
import type { Deps } from './deps.js'
import { DEFAULT_LIMIT, type Page, type PageParams } from './lists.js'

export const linkUrl = (baseUrl: string, id: string) => `${baseUrl}/l/${id}`

export function paymentLinkView(r: PaymentLinkRow, baseUrl: string): PaymentLinkT {
  return {
    id: r.id,
    url: linkUrl(baseUrl, r.id),
    active: r.active,
    amount: r.amount,
    minAmount: r.minAmount,
    maxAmount: r.maxAmount,
    currency: r.currency,
    description: r.description,
    metadata: r.metadata,
    providerHints: r.providerHints,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    maxPayments: r.maxPayments,
    paidCount: r.paidCount,
    mode: r.mode,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }
}

/** An expiry in the future, as a Date (the schema has checked its format). */
function futureTime(field: string, text: string, now: Date): Date {
  const at = new Date(text)
  if (Number.isNaN(at.getTime())) throw new InvalidField(field, 'must be an ISO 8601 time with a time zone')
  if (at.getTime() <= now.getTime()) throw new InvalidField(field, 'must be in the future')
  return at
}

export async function createPaymentLink(deps: Deps, scope: Scope, body: PaymentLinkBodyT): Promise<PaymentLinkT> {
  if (!isCurrency(body.currency)) throw new InvalidField('currency', `must be one of ${CURRENCY_CODES.join(', ')}`)
  const amounts = checkLinkAmounts({ amount: body.amount ?? null, minAmount: body.minAmount ?? null, maxAmount: body.maxAmount ?? null })
  const metadata = checkMetadata(body.metadata)
  if (body.description !== undefined && [...body.description].length > 200) throw new InvalidField('description', 'must be at most 200 characters')
  const now = deps.clock()
  const expiresAt = body.expiresAt === undefined ? null : futureTime('expiresAt', body.expiresAt, now)
  // The sessions it will make must be possible: the same checks as a session's (a live provider for the currency, the hinted configuration).
  await sessionRow(deps, scope, { amount: amounts.amount ?? amounts.minAmount!, currency: body.currency, providerHints: body.providerHints }, null)
  const row = await links.insertPaymentLink(deps.db, {
    id: newId('plink'),
    merchantId: scope.merchantId,
    mode: scope.mode,
    active: body.active ?? true,
    ...amounts,
    currency: body.currency,
    description: body.description ?? null,
    metadata,
    providerHints: body.providerHints ?? null,
    expiresAt,
    maxPayments: checkMaxPayments(body.maxPayments ?? null),
    createdAt: now,
    updatedAt: now,
  })
  return paymentLinkView(row, deps.config.baseUrl)
}

export async function readPaymentLink(deps: Deps, scope: Scope, id: string): Promise<PaymentLinkT> {
  const row = await links.getPaymentLink(deps.db, scope, id)
  if (!row) throw new NotFound()
  return paymentLinkView(row, deps.config.baseUrl)
}

export async function listPaymentLinks(deps: Deps, scope: Scope, page: PageParams): Promise<Page<PaymentLinkT>> {
  const limit = page.limit ?? DEFAULT_LIMIT
  let after
  if (page.startingAfter !== undefined) {
    after = await links.getPaymentLink(deps.db, scope, page.startingAfter)
    if (!after) throw new InvalidField('starting_after', 'no such payment link')
  }
  const { rows, hasMore } = await links.listPaymentLinks(deps.db, scope, after ?? undefined, limit)
  return { data: rows.map((r) => paymentLinkView(r, deps.config.baseUrl)), hasMore }
}

/** Fields not sent stay as they are; null clears an optional one. The amounts, currency and provider hint never change: the link may be printed already. */
export async function updatePaymentLink(deps: Deps, scope: Scope, id: string, patch: PaymentLinkPatchT): Promise<PaymentLinkT> {
  const now = deps.clock()
  const set: Partial<PaymentLinkRow> = {}
  if (patch.active !== undefined) set.active = patch.active
  if (patch.description !== undefined) set.description = patch.description
  if (patch.metadata !== undefined) set.metadata = checkMetadata(patch.metadata)
  if (patch.maxPayments !== undefined) set.maxPayments = checkMaxPayments(patch.maxPayments)
  if (patch.expiresAt !== undefined) set.expiresAt = patch.expiresAt === null ? null : futureTime('expiresAt', patch.expiresAt, now)
  const row = await links.updatePaymentLink(deps.db, scope, id, set, now)
  if (!row) throw new NotFound()
  return paymentLinkView(row, deps.config.baseUrl)
}
