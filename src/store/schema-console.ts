/** The console's people and their traces: members, invitations, sign-ins, the activity log (docs/console.md). Its own file beside schema.ts; drizzle-kit reads both (drizzle.config.ts). */
import { sql } from 'drizzle-orm'
import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { createdAt, merchants, ts } from './schema.js'

/**
 * The people who sign in to a merchant's console (docs/console.md#members-and-roles), each with a
 * role from domain/console-roles.ts. Emails are unique among members still in place, whatever their
 * case, across merchants: sign-in finds the member by email alone.
 */
export const consoleMembers = pgTable('console_members', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  email: text('email').notNull(),
  /** null until an invitation is accepted (scrypt, security/api-keys.ts). */
  passwordHash: text('password_hash'),
  role: text('role').notNull(),
  createdAt: createdAt(),
  removedAt: ts('removed_at'),
}, (t) => [
  uniqueIndex('console_members_email_lower_uq').on(sql`lower(${t.email})`).where(sql`${t.removedAt} is null`),
  index('console_members_merchant_idx').on(t.merchantId),
])

/** An invitation to join a merchant's console: a one-time link (its token's SHA-256 here) that expires. */
export const consoleInvitations = pgTable('console_invitations', {
  tokenHash: text('token_hash').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  email: text('email').notNull(),
  role: text('role').notNull(),
  invitedBy: text('invited_by').references(() => consoleMembers.id),
  createdAt: createdAt(),
  expiresAt: ts('expires_at').notNull(),
  /** Set when accepted or withdrawn: the link works once. */
  usedAt: ts('used_at'),
}, (t) => [index('console_invitations_merchant_idx').on(t.merchantId)])

/** Console sign-ins: the cookie carries a random token, the row only its SHA-256. */
export const consoleSessions = pgTable('console_sessions', {
  tokenHash: text('token_hash').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  /** The synchronizer token every console form carries. */
  csrfToken: text('csrf_token').notNull(),
  createdAt: createdAt(),
  lastSeenAt: ts('last_seen_at').notNull(),
  revokedAt: ts('revoked_at'),
  ip: text('ip'),
  userAgent: text('user_agent'),
  /** Whose session; null only on sessions opened before members existed (0016), which no longer sign anyone in. */
  memberId: text('member_id').references(() => consoleMembers.id),
}, (t) => [index('console_sessions_merchant_idx').on(t.merchantId)])

/** Who did what in the console, and when: kept, and shown under Activity. */
export const consoleActivity = pgTable('console_activity', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  /** null for what has no mode (sign-ins, settings, provider configurations). */
  mode: text('mode').$type<'test' | 'live'>(),
  actor: text('actor').notNull(),
  action: text('action').notNull(),
  subject: text('subject'),
  detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  ip: text('ip'),
  createdAt: createdAt(),
  /** The member who acted; null for the operator, Till itself, and entries from before members. */
  memberId: text('member_id'),
  userAgent: text('user_agent'),
}, (t) => [
  index('console_activity_merchant_idx').on(t.merchantId, t.id),
  // The log filtered by member or by action, newest first (the console's page, the admin API, CSV).
  index('console_activity_member_idx').on(t.merchantId, t.memberId, t.id),
  index('console_activity_action_idx').on(t.merchantId, t.action, t.id),
  // The retention purge (jobs/runner.ts) finds what is past keeping by its time.
  index('console_activity_created_idx').on(t.createdAt),
  // A refund is logged once, even when a double click posts its form twice at the same moment.
  uniqueIndex('console_activity_refund_uq').on(t.merchantId, t.subject).where(sql`${t.action} = 'refund_created'`),
])

/** Console password checks (failed, or in progress) per account and per address, in fixed windows, shared by every instance. */
export const consoleSignInFailures = pgTable('console_sign_in_failures', {
  key: text('key').notNull(),
  windowStart: bigint('window_start', { mode: 'number' }).notNull(),
  count: integer('count').notNull(),
}, (t) => [primaryKey({ columns: [t.key, t.windowStart] })])
