/**
 * The console's second factor (services/second-factor.ts, docs/console.md#a-second-factor): each
 * member's TOTP secret and recovery codes, when each console session last passed a check, and the
 * merchant's console policy (every member needs a second factor; the per-currency refund limit).
 * Its own file beside schema.ts; drizzle-kit reads both (drizzle.config.ts).
 */
import { bigint, boolean, foreignKey, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { consoleMembers, consoleSessions } from './schema-console.js'
import { createdAt, merchants, ts } from './schema.js'

/**
 * A member's TOTP secret, sealed with SECRETS_KEY (the AAD names the member). `confirmedAt` null: an
 * enrolment begun and not yet confirmed with a code, which asks nothing at sign-in, and which only
 * the console session that began it (`beganByTokenHash`) is shown and may confirm.
 */
export const consoleSecondFactors = pgTable('console_second_factors', {
  memberId: text('member_id').primaryKey().references(() => consoleMembers.id),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  secretEnc: text('secret_enc').notNull(),
  confirmedAt: ts('confirmed_at'),
  /** The last TOTP time step accepted: a code must be of a later one (a conditional UPDATE claims it). */
  lastStep: bigint('last_step', { mode: 'number' }).notNull().default(0),
  /** The session that began the enrolment; null on rows begun before migration 0021 (shown to none: begun again). */
  beganByTokenHash: text('began_by_token_hash'),
  createdAt: createdAt(),
}, (t) => [index('console_second_factors_merchant_idx').on(t.merchantId)])

/** Ten single-use recovery codes per member, keyed-hashed; `usedAt` is claimed by a conditional UPDATE. */
export const consoleRecoveryCodes = pgTable('console_recovery_codes', {
  memberId: text('member_id').notNull().references(() => consoleMembers.id),
  codeHash: text('code_hash').notNull(),
  usedAt: ts('used_at'),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.memberId, t.codeHash] })])

/** When a console session last passed a second-factor check (none: not yet, so it is half signed in). */
export const consoleSessionChecks = pgTable('console_session_checks', {
  tokenHash: text('token_hash').primaryKey(),
  checkedAt: ts('checked_at').notNull(),
}, (t) => [
  // Named: drizzle's default name is past PostgreSQL's 63 characters.
  foreignKey({ name: 'console_session_checks_session_fk', columns: [t.tokenHash], foreignColumns: [consoleSessions.tokenHash] }).onDelete('cascade'),
])

/** A merchant's console policy; no row: no second factor required and no refund limit. */
export const merchantConsolePolicies = pgTable('merchant_console_policies', {
  merchantId: text('merchant_id').primaryKey().references(() => merchants.id),
  requireSecondFactor: boolean('require_second_factor').notNull().default(false),
  /** Per currency, in minor units: the most a `support` member may refund, and above which anyone steps up. */
  refundLimits: jsonb('refund_limits').$type<Record<string, number>>().notNull().default({}),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})
