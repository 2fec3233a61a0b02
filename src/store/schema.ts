/** The SQL schema's core; the schema-*.ts files beside it hold the rest. drizzle-kit generates store/migrations/ from all of them (`npm run db:generate`). */
import { sql } from 'drizzle-orm'
import {
  bigint, bigserial, boolean, customType, date, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex,
} from 'drizzle-orm/pg-core'
import type { Locale } from '../domain/locales.js'
import type { Currency } from '../domain/money.js'
import type { CurrencyTotals, Difference, ItemCategory, StatementState } from '../domain/reconciliation.js'
import type { RecordStatus } from '../domain/refund-math.js'
import type { SessionStatus } from '../domain/session-machine.js'

export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' })
export const createdAt = () => ts('created_at').notNull().defaultNow()

export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** The console login, stored lower-cased; unique whatever its case (merchants_email_lower_uq). */
  email: text('email'),
  passwordHash: text('password_hash'),
  createdAt: createdAt(),
  /** What customers see on the hosted pages (console Settings); null falls back to `name`. */
  displayName: text('display_name'),
  brandColor: text('brand_color'),
  supportEmail: text('support_email'),
  /** The merchant's support page or site: the way back from an unpaid checkout that names none (pages/checkout/way-back.ts). */
  supportUrl: text('support_url'),
  /** Content hash of the logo in merchant_logos: part of its URL, so a new logo gets a new one. */
  logoHash: text('logo_hash'),
  /** Whether a paid session's buyer gets a receipt by email, and a refunded one a notice (console Settings). */
  receiptEmails: boolean('receipt_emails').notNull().default(true),
  refundEmails: boolean('refund_emails').notNull().default(true),
  /** IANA zone for times shown to buyers when their own is unknown (emails; pages before their script runs). */
  timeZone: text('time_zone').notNull().default('UTC'),
}, (t) => [uniqueIndex('merchants_email_lower_uq').on(sql`lower(${t.email})`)])

/** A merchant's logo, uploaded in the console and served by Till itself (CSP: images from 'self'). */
export const merchantLogos = pgTable('merchant_logos', {
  merchantId: text('merchant_id').primaryKey().references(() => merchants.id),
  contentType: text('content_type').notNull(),
  /** Base64 of the image bytes (at most 64 KiB). */
  data: text('data').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  keyHash: text('key_hash').notNull().unique(),
  last4: text('last4').notNull(),
  createdAt: createdAt(),
  revokedAt: ts('revoked_at'),
  /** Set by the key check at most once a minute (store/repos/rate-limits.ts). */
  lastUsedAt: ts('last_used_at'),
}, (t) => [index('api_keys_merchant_idx').on(t.merchantId)])

export const providerConfigs = pgTable('provider_configs', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  provider: text('provider').notNull(),
  label: text('label').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  isDefault: boolean('is_default').notNull().default(false),
  /** AES-256-GCM box of the credentials JSON; never leaves the service. */
  credentialsEnc: text('credentials_enc').notNull(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('provider_configs_label_uq').on(t.merchantId, t.provider, t.label),
  uniqueIndex('provider_configs_default_uq').on(t.merchantId, t.provider).where(sql`${t.isDefault}`),
])

export const sessions = pgTable('sessions', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  status: text('status').$type<SessionStatus>().notNull(),
  amount: integer('amount').notNull(),
  currency: text('currency').$type<Currency>().notNull(),
  description: text('description'),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
  successUrl: text('success_url'),
  /** Where a customer who did not pay goes back to (pages/checkout/way-back.ts). */
  cancelUrl: text('cancel_url'),
  /** The language the merchant chose for the session's pages (web/locale.ts); null lets the customer's browser decide. */
  locale: text('locale').$type<Locale>(),
  chosenProvider: text('chosen_provider'),
  providerConfigId: text('provider_config_id').references(() => providerConfigs.id),
  expiresAt: ts('expires_at').notNull(),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  /** Where the receipt and refund notices go (services/emails.ts); null: none are sent. */
  customerEmail: text('customer_email'),
  /** The payment link whose page made the session (services/payment-link-sessions.ts); null for a session made through the API. */
  paymentLinkId: text('payment_link_id'),
}, (t) => [
  // The merchant's lists, newest first, read by keyset (created_at, id): whole, by status, by metadata.
  index('sessions_scope_idx').on(t.merchantId, t.mode, t.createdAt, t.id),
  index('sessions_scope_status_idx').on(t.merchantId, t.mode, t.status, t.createdAt, t.id),
  // jsonb_ops (not jsonb_path_ops): it also serves `$.* ? (@ == "v")`, a value under any key.
  index('sessions_metadata_idx').using('gin', t.metadata),
  index('sessions_open_expiry_idx').on(t.expiresAt).where(sql`${t.status} in ('pending', 'processing')`),
])

/** One try at paying a session through a provider; its id is the provider-side order number. */
export const attempts = pgTable('attempts', {
  id: text('id').primaryKey(),
  sessionId: text('session_id').notNull().references(() => sessions.id),
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  provider: text('provider').notNull(),
  providerConfigId: text('provider_config_id').references(() => providerConfigs.id),
  channel: text('channel'),
  status: text('status').$type<'processing' | 'succeeded' | 'failed' | 'closed'>().notNull(),
  providerRef: text('provider_ref'),
  /** Opaque provider state, passed back to the adapter on later calls. */
  providerData: jsonb('provider_data').$type<Record<string, unknown>>().notNull().default({}),
  nextCheckAt: ts('next_check_at'),
  checks: integer('checks').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  index('attempts_session_idx').on(t.sessionId),
  index('attempts_check_idx').on(t.nextCheckAt).where(sql`${t.status} = 'processing'`),
])

export const records = pgTable('records', {
  id: text('id').primaryKey(),
  sessionId: text('session_id').notNull().unique().references(() => sessions.id),
  attemptId: text('attempt_id').references(() => attempts.id),
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  provider: text('provider').notNull(),
  providerConfigId: text('provider_config_id').references(() => providerConfigs.id),
  providerRef: text('provider_ref').notNull(),
  providerData: jsonb('provider_data').$type<Record<string, unknown>>().notNull().default({}),
  amount: integer('amount').notNull(),
  refundedAmount: integer('refunded_amount').notNull().default(0),
  currency: text('currency').$type<Currency>().notNull(),
  status: text('status').$type<RecordStatus>().notNull(),
  paidAt: ts('paid_at').notNull(),
  createdAt: createdAt(),
}, (t) => [
  index('records_scope_idx').on(t.merchantId, t.mode, t.createdAt, t.id),
  index('records_scope_status_idx').on(t.merchantId, t.mode, t.status, t.createdAt, t.id),
  // Reconciliation: a statement line names the attempt; a day's records of a configuration.
  index('records_attempt_idx').on(t.attemptId),
  index('records_config_paid_idx').on(t.providerConfigId, t.paidAt),
])

export const refunds = pgTable('refunds', {
  id: text('id').primaryKey(),
  recordId: text('record_id').notNull().references(() => records.id),
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  amount: integer('amount').notNull(),
  status: text('status').$type<'pending' | 'succeeded' | 'failed'>().notNull(),
  providerRef: text('provider_ref'),
  reason: text('reason'),
  /** `merchant` through the API, `provider` for one started outside Till (a provider dashboard). */
  initiatedBy: text('initiated_by').$type<'merchant' | 'provider'>().notNull().default('merchant'),
  idempotencyKey: text('idempotency_key'),
  /** Set once the provider answered `pending` (and refund.pending was sent): not just reserved. */
  providerPending: boolean('provider_pending').notNull().default(false),
  failureReason: text('failure_reason'),
  nextCheckAt: ts('next_check_at'),
  checks: integer('checks').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  index('refunds_record_idx').on(t.recordId, t.createdAt, t.id),
  index('refunds_scope_idx').on(t.merchantId, t.mode, t.createdAt, t.id),
  index('refunds_check_idx').on(t.nextCheckAt).where(sql`${t.status} = 'pending'`),
  uniqueIndex('refunds_idempotency_uq').on(t.merchantId, t.mode, t.idempotencyKey),
  // Reconciliation: a refund started outside Till is named on the statement by the provider's id only.
  index('refunds_provider_ref_idx').on(t.providerRef).where(sql`${t.initiatedBy} = 'provider'`),
])

/** The outbox: one row per state change, committed with it. */
export const events = pgTable('events', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  type: text('type').notNull(),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  /** The webhook body, serialised once: every delivery and retry sends (and signs) these exact bytes. */
  payload: text('payload').notNull(),
  createdAt: createdAt(),
  /** The W3C traceparent of the span that appended it (tracing on), which its deliveries continue in whichever process sends them. */
  traceparent: text('traceparent'),
}, (t) => [
  index('events_scope_idx').on(t.merchantId, t.mode, t.createdAt, t.id),
  // A payment's timeline in the console: the events that name its session.
  index('events_session_idx').on(t.merchantId, t.mode, sql`(${t.data}->>'sessionId')`),
])

/** A replaced webhook secret (sealed like secret_enc) and when it stops signing, in epoch milliseconds. */
export interface PreviousSecret {
  secretEnc: string
  expiresAt: number
}

/** Where a merchant wants its events (docs/integrate.md#webhooks). Deleted endpoints stay, so attempt history stays readable. */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  url: text('url').notNull(),
  /** Event types to send; null means every type. */
  events: text('events').array(),
  enabled: boolean('enabled').notNull().default(true),
  /** AES-256-GCM boxes bound to the endpoint row: the secret must be readable to sign with it. */
  secretEnc: text('secret_enc').notNull(),
  /** Secrets replaced by rotations, each signing beside the current one until its own expiry. */
  previousSecrets: jsonb('previous_secrets').$type<PreviousSecret[]>().notNull().default([]),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  deletedAt: ts('deleted_at'),
  /**
   * Health, kept by the delivery worker in the statement that records each attempt
   * (store/repos/deliveries.ts), so reading it costs one row, never a scan of the attempts.
   */
  lastSuccessAt: ts('last_success_at'),
  lastFailureAt: ts('last_failure_at'),
  /** `HTTP 503`, or what went wrong when no answer came (refused, timed out). */
  lastFailureReason: text('last_failure_reason'),
  /** The first failed attempt after the last success; null while the last attempt succeeded. */
  failingSince: ts('failing_since'),
  failuresSinceSuccess: integer('failures_since_success').notNull().default(0),
  /** Set when Till disabled the endpoint for failing (docs/integrate.md#endpoint-health); cleared when it is enabled again. */
  disabledForFailingAt: ts('disabled_for_failing_at'),
}, (t) => [index('webhook_endpoints_scope_idx').on(t.merchantId, t.mode)])

/** Attempts per endpoint and hour, delivered or not: an endpoint's recent success rate is a sum of at most 24 rows. */
export const webhookEndpointHours = pgTable('webhook_endpoint_hours', {
  endpointId: text('endpoint_id').notNull().references(() => webhookEndpoints.id),
  hour: ts('hour').notNull(),
  delivered: integer('delivered').notNull().default(0),
  failed: integer('failed').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.endpointId, t.hour] })])

/** One row per (event, endpoint), written in the transaction of the event: the durable outbox. */
export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  eventId: text('event_id').notNull().references(() => events.id),
  endpointId: text('endpoint_id').notNull().references(() => webhookEndpoints.id),
  status: text('status').$type<'pending' | 'delivered' | 'failed' | 'canceled'>().notNull(),
  /** Attempts in the current run of the retry schedule (a redelivery starts a new run). */
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at'),
  /** The lease of the worker delivering it now; the token fences a worker whose lease lapsed. */
  leasedUntil: ts('leased_until'),
  leaseToken: text('lease_token'),
  deliveredAt: ts('delivered_at'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('webhook_deliveries_event_endpoint_uq').on(t.eventId, t.endpointId),
  // Oldest first, ties in the order they were written.
  index('webhook_deliveries_due_idx').on(t.nextAttemptAt, t.id).where(sql`${t.status} = 'pending'`),
  index('webhook_deliveries_endpoint_idx').on(t.endpointId),
  // The few rows in flight, counted per endpoint on every claim.
  index('webhook_deliveries_leased_idx').on(t.endpointId).where(sql`${t.leasedUntil} is not null`),
])

/** Every attempt, kept: what the merchant sees under GET /api/v1/events/{id}. */
export const webhookAttempts = pgTable('webhook_attempts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  deliveryId: bigint('delivery_id', { mode: 'number' }).notNull().references(() => webhookDeliveries.id),
  attemptedAt: ts('attempted_at').notNull(),
  statusCode: integer('status_code'),
  latencyMs: integer('latency_ms').notNull(),
  /** The first KiB of the answer. */
  responseBody: text('response_body'),
  error: text('error'),
}, (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)])

export const idempotencyKeys = pgTable('idempotency_keys', {
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').notNull(),
  key: text('key').notNull(),
  fingerprint: text('fingerprint').notNull(),
  responseStatus: integer('response_status'),
  responseBody: text('response_body'),
  /** In flight while response_status is null; a lease that lapsed (a crashed process) may be taken over. */
  lockedUntil: ts('locked_until'),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.mode, t.key] }), index('idempotency_created_idx').on(t.createdAt)])

/** Products a provider needs, made once and remembered: Creem's one per currency, keyed by its listed price (each checkout sets its own amount). */
export const providerProducts = pgTable('provider_products', {
  providerConfigId: text('provider_config_id').notNull().references(() => providerConfigs.id),
  amount: integer('amount').notNull(),
  currency: text('currency').notNull(),
  productId: text('product_id').notNull(),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.providerConfigId, t.amount, t.currency] })])

/** Fixed-window request counters shared by every instance, so a key's rate limit holds across them. */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: text('key').notNull(),
  windowStart: bigint('window_start', { mode: 'number' }).notNull(),
  count: integer('count').notNull(),
}, (t) => [primaryKey({ columns: [t.key, t.windowStart] })])

/**
 * Provider reports that did not match what Till asked for (an unknown refund, an amount above what is
 * refundable, a missing or different amount or currency): they changed no money state and wait here
 * for an operator (GET /admin/v1/discrepancies). `report` is what the provider said, `expected` what Till knew.
 */
export const discrepancies = pgTable('discrepancies', {
  id: text('id').primaryKey(),
  provider: text('provider').notNull(),
  providerConfigId: text('provider_config_id'),
  merchantId: text('merchant_id'),
  kind: text('kind').notNull(),
  report: jsonb('report').$type<Record<string, unknown>>().notNull(),
  expected: jsonb('expected').$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
}, (t) => [index('discrepancies_created_idx').on(t.createdAt, t.id)])

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' })

/**
 * A provider's statement of one day for one configuration, and the reconciliation of it
 * (docs/reconciliation.md): `waiting` (not published yet, or a download refused: nothing kept, asked
 * again at next_try_at), `failed` (the provider refused, or the files are not in the expected
 * format: reason says why; asked again later too), `fetched` (files kept, not matched yet),
 * `reconciled` (matched: counts and totals are the last run's).
 */
export const statements = pgTable('statements', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  provider: text('provider').notNull(),
  providerConfigId: text('provider_config_id').notNull().references(() => providerConfigs.id),
  /** The provider's day (YYYY-MM-DD) in `zone`. */
  day: date('day', { mode: 'string' }).notNull(),
  zone: text('zone').notNull(),
  state: text('state').$type<StatementState>().notNull(),
  reason: text('reason'),
  /** Fetches that did not give a statement since the last one that did: the backoff's step. */
  tries: integer('tries').notNull().default(0),
  nextTryAt: ts('next_try_at'),
  /** Held by the run working on the day now (the job, the admin API, the console), so two never match it at once. */
  leasedUntil: ts('leased_until'),
  leaseToken: text('lease_token'),
  fetchedAt: ts('fetched_at'),
  reconciledAt: ts('reconciled_at'),
  /** Items per category after the last run. */
  counts: jsonb('counts').$type<Partial<Record<ItemCategory, number>>>().notNull().default({}),
  /** Per currency: the statement's own summary, the sum of its lines, and Till's side. */
  totals: jsonb('totals').$type<CurrencyTotals[]>().notNull().default([]),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('statements_config_day_uq').on(t.providerConfigId, t.day),
  index('statements_scope_idx').on(t.merchantId, t.mode, t.day),
])

/** The files of a statement as the provider sent them (decompressed), kept so a re-run parses them again without fetching; the bytes are in statement_file_chunks. */
export const statementFiles = pgTable('statement_files', {
  statementId: text('statement_id').notNull().references(() => statements.id),
  name: text('name').notNull(),
  type: text('type').notNull(),
  sha256: text('sha256').notNull(),
  size: integer('size').notNull(),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.statementId, t.name] })])

/** A kept file's bytes, in order, at most 1 MiB a row: written as the download arrives and read back as a stream. */
export const statementFileChunks = pgTable('statement_file_chunks', {
  statementId: text('statement_id').notNull(),
  name: text('name').notNull(),
  seq: integer('seq').notNull(),
  data: bytea('data').notNull(),
}, (t) => [
  primaryKey({ columns: [t.statementId, t.name, t.seq] }),
  foreignKey({ columns: [t.statementId, t.name], foreignColumns: [statementFiles.statementId, statementFiles.name] }).onDelete('cascade'),
])

/** The parsed lines of a statement, with their source (file, line, fields by column name); written again by each run. */
export const statementLines = pgTable('statement_lines', {
  statementId: text('statement_id').notNull().references(() => statements.id),
  file: text('file').notNull(),
  lineNo: integer('line_no').notNull(),
  providerConfigId: text('provider_config_id').notNull(),
  kind: text('kind').$type<'payment' | 'refund'>().notNull(),
  tillRef: text('till_ref'),
  providerRef: text('provider_ref'),
  paymentTillRef: text('payment_till_ref'),
  /** A refund's payment, the provider's id of it: what a per-payment refund line (Creem's) pairs by. */
  paymentProviderRef: text('payment_provider_ref'),
  amount: bigint('amount', { mode: 'number' }).notNull(),
  currency: text('currency').notNull(),
  status: text('status').$type<'succeeded' | 'pending' | 'failed'>().notNull(),
  fee: bigint('fee', { mode: 'number' }),
  at: ts('at').notNull(),
  fields: jsonb('fields').$type<Record<string, string>>().notNull(),
}, (t) => [
  primaryKey({ columns: [t.statementId, t.file, t.lineNo] }),
  // A Till payment or refund of one day whose line came on another day's statement.
  index('statement_lines_ref_idx').on(t.providerConfigId, t.kind, t.tillRef),
  // A record's refunds covered by a per-payment refund line, on any day's statement.
  index('statement_lines_payment_ref_idx').on(t.providerConfigId, t.paymentProviderRef).where(sql`${t.kind} = 'refund'`),
])

/**
 * One per pair (a statement line and Till's payment or refund) or orphan of a day: its category,
 * both sides as they were, and an operator's acknowledgement, kept across runs while the item is
 * unchanged (same fingerprint).
 */
export const reconciliationItems = pgTable('reconciliation_items', {
  id: text('id').primaryKey(),
  statementId: text('statement_id').notNull().references(() => statements.id),
  merchantId: text('merchant_id').notNull(),
  mode: text('mode').$type<'test' | 'live'>().notNull(),
  /** What the item is about, stable across runs: `payment:<attempt id>`, `refund:<refund id>`, `line:<file>:<line>`. */
  key: text('key').notNull(),
  kind: text('kind').$type<'payment' | 'refund'>().notNull(),
  category: text('category').$type<ItemCategory>().notNull(),
  till: jsonb('till').$type<Record<string, unknown>>(),
  line: jsonb('line').$type<Record<string, unknown>>(),
  /** What differs: each field with Till's value and the statement's. */
  differences: jsonb('differences').$type<Difference[]>().notNull().default([]),
  fingerprint: text('fingerprint').notNull(),
  /** An `expected` item turns into a mismatch after this, unless its counterpart arrived. */
  expectedUntil: ts('expected_until'),
  acknowledgedAt: ts('acknowledged_at'),
  acknowledgedBy: text('acknowledged_by'),
  acknowledgementNote: text('acknowledgement_note'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('reconciliation_items_key_uq').on(t.statementId, t.key),
  index('reconciliation_items_list_idx').on(t.statementId, t.category, t.id),
  // The open mismatches: the gauge, the console's and the API's lists.
  index('reconciliation_items_open_idx').on(t.merchantId, t.mode).where(sql`${t.acknowledgedAt} is null and ${t.category} not in ('matched', 'expected')`),
  index('reconciliation_items_expected_idx').on(t.expectedUntil).where(sql`${t.category} = 'expected'`),
])
