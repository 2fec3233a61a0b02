/** The buyer's email outbox (services/emails.ts, jobs/mail.ts). Its own file beside schema.ts; drizzle-kit reads both (drizzle.config.ts). */
import { sql } from 'drizzle-orm'
import { bigint, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { createdAt, merchants, sessions, ts } from './schema.js'

/** A mail outbox row's delivery (jobs/leased-mail.ts): its state, tries, lease, and what the server said. */
export const mailDelivery = () => ({
  status: text('status').$type<'pending' | 'sent' | 'failed'>().notNull().default('pending'),
  attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
  nextAttemptAt: ts('next_attempt_at'),
  leaseUntil: ts('lease_until'),
  leaseToken: text('lease_token'),
  lastError: text('last_error'),
  messageId: text('message_id'),
  sentAt: ts('sent_at'),
})

/**
 * The email outbox: a receipt or refund notice, written in the transaction that paid or refunded,
 * sent by jobs/mail.ts under a lease (SKIP LOCKED) and retried with backoff.
 */
export const emails = pgTable('emails', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  sessionId: text('session_id').notNull().references(() => sessions.id),
  kind: text('kind').$type<'receipt' | 'refund'>().notNull(),
  /** The refund a notice is about; null for a receipt. One email per (session, kind, refund). */
  refundId: text('refund_id'),
  recipient: text('recipient').notNull(),
  ...mailDelivery(),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex('emails_once_uq').on(t.sessionId, t.kind, sql`coalesce(${t.refundId}, '')`),
  index('emails_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
])
