/**
 * Console members' one-time links by email (services/member-mail.ts, services/password-reset.ts,
 * jobs/member-mail.ts). Its own file beside schema.ts; drizzle-kit reads both (drizzle.config.ts).
 */
import { pgTable, text } from 'drizzle-orm/pg-core'
import { mailDelivery } from './schema-emails.js'
import { consoleMembers } from './schema-console.js'
import { createdAt, merchants, ts } from './schema.js'

/**
 * A password reset: a one-time link (its token's SHA-256 here) that expires. Made by the member
 * ("Forgot password?") or by an owner on the Members page.
 */
export const consolePasswordResets = pgTable('console_password_resets', {
  tokenHash: text('token_hash').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  memberId: text('member_id').notNull().references(() => consoleMembers.id),
  /** The owner who made it; null when the member asked for it. */
  madeBy: text('made_by').references(() => consoleMembers.id),
  createdAt: createdAt(),
  expiresAt: ts('expires_at').notNull(),
  /** Set when used, or when another reset of the member was used: the link works once. */
  usedAt: ts('used_at'),
})

/**
 * The members' mail outbox (an invitation or a password reset), written in the transaction that
 * makes the link and sent by the mail job like the buyers' emails. The link is kept only sealed
 * (security/secret-box.ts, bound to the row) and only until the mail is sent, fails for good, or
 * the link expires. No index: it holds a row per invitation or reset, and an index on a table that
 * exists would need a migration of its own (CONCURRENTLY).
 */
export const memberEmails = pgTable('member_emails', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  kind: text('kind').$type<'invitation' | 'password_reset'>().notNull(),
  recipient: text('recipient').notNull(),
  locale: text('locale').notNull(),
  /** The sealed link; null once it is no longer needed. */
  linkBox: text('link_box'),
  /** When the link stops working: the mail is not sent after it. */
  linkExpiresAt: ts('link_expires_at').notNull(),
  ...mailDelivery(),
  createdAt: createdAt(),
})
