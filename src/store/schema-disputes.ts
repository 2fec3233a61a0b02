/**
 * Disputes (chargebacks) a provider reports on a paid record (docs/integrate.md#disputes). Its own
 * file beside schema.ts; drizzle-kit reads both (drizzle.config.ts). No foreign keys and amounts as
 * bigint: migration 0013 only creates the table, taking no lock on the tables it names.
 */
import { bigint, pgTable, text, unique } from 'drizzle-orm/pg-core'
import type { Currency } from '../domain/money.js'
import { ts } from './schema.js'

export const disputes = pgTable('disputes', {
  id: text('id').primaryKey(),
  recordId: text('record_id').notNull(),
  sessionId: text('session_id').notNull(),
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  provider: text('provider').notNull(),
  providerConfigId: text('provider_config_id'),
  /** The provider's dispute id (Stripe's `dp_…`): one row per dispute of a record. */
  providerRef: text('provider_ref').notNull(),
  /** Disputed, in the currency's minor units; may be less than the record's amount. */
  amount: bigint('amount', { mode: 'number' }).notNull(),
  currency: text('currency').$type<Currency>().notNull(),
  reason: text('reason'),
  /** The provider's status as last read back (Stripe: needs_response, under_review, won, lost, …). */
  status: text('status').notNull(),
  /** When the merchant's evidence is due at the provider. */
  dueBy: ts('due_by'),
  closedAt: ts('closed_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  // Also the record's disputes, for the payment page and the API.
  unique('disputes_record_ref_uq').on(t.recordId, t.providerRef),
])
