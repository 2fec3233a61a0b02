/** Payment links (services/payment-links.ts). Its own file beside schema.ts; drizzle-kit reads both (drizzle.config.ts). */
import { bigint, boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core'
import type { Currency } from '../domain/money.js'
import { createdAt, merchants, ts } from './schema.js'

/**
 * A payment link: a page (/l/{id}) that makes a fresh session for each buyer (services/payment-links.ts).
 * `paidCount` grows in the transaction that marks one of its sessions paid (services/sessions.ts), so
 * "used up" is read under the link's row lock.
 */
export const paymentLinks = pgTable('payment_links', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  active: boolean('active').notNull(),
  /** A fixed amount; null when the buyer enters one between minAmount and maxAmount. */
  amount: bigint('amount', { mode: 'number' }),
  minAmount: bigint('min_amount', { mode: 'number' }),
  maxAmount: bigint('max_amount', { mode: 'number' }),
  currency: text('currency').$type<Currency>().notNull(),
  description: text('description'),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
  /** provider id → configuration label, as a session's providerHints. */
  providerHints: jsonb('provider_hints').$type<Record<string, string>>(),
  expiresAt: ts('expires_at'),
  maxPayments: bigint('max_payments', { mode: 'number' }),
  paidCount: bigint('paid_count', { mode: 'number' }).notNull().default(0),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [index('payment_links_scope_idx').on(t.merchantId, t.mode, t.createdAt, t.id)])
