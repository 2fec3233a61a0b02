import { and, eq, gt, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm'
import { unionAll } from 'drizzle-orm/pg-core'
import { storedStatusesFor, type SessionStatus } from '../../domain/session-machine.js'
import type { Executor } from '../db.js'
import { rawStatement, tableRows } from '../prepared.js'
import { attempts, sessions } from '../schema.js'
import { CLAIM_SQL, claimValues, isKeyThere, KEY_INSERT, KeyTaken, type KeyClaim } from './idempotency.js'
import { before, newestFirst, toPage, type Cursor } from './page.js'
import type { Scope } from './scope.js'

export type SessionRow = typeof sessions.$inferSelect
export type AttemptRow = typeof attempts.$inferSelect

// A complete session row, every column given: the caller answers from it, not from the database
// (no RETURNING to parse and map back, which cost checkout more CPU than the INSERT's own round trip).
const COLUMNS = 'id, merchant_id, mode, status, amount, currency, description, metadata, success_url, cancel_url, locale, chosen_provider, provider_config_id, expires_at, created_at, updated_at, customer_email, payment_link_id'
const rowValues = (row: SessionRow) => [row.id, row.merchantId, row.mode, row.status, row.amount, row.currency, row.description, JSON.stringify(row.metadata),
  row.successUrl, row.cancelUrl, row.locale, row.chosenProvider, row.providerConfigId, row.expiresAt, row.createdAt, row.updatedAt, row.customerEmail, row.paymentLinkId]
const params = (from: number) => ['text', 'text', 'text', 'text', 'int', 'text', 'text', 'jsonb', 'text', 'text', 'text', 'text', 'text', 'timestamptz', 'timestamptz', 'timestamptz', 'text', 'text']
  .map((type, i) => `$${from + i}::${type}`).join(', ')

const insertRowStmt = rawStatement('session_insert_row', `insert into sessions (${COLUMNS}) values (${params(1)})`)

/** The plain INSERT's parts, for bench/keyed-statement.ts to price variants of the keyed one against it. */
export const sessionInsert = { columns: COLUMNS, values: rowValues, params }

/** Inserts a complete session row (checkout without an Idempotency-Key). */
export async function insertSessionRow(tx: Executor, row: SessionRow) {
  await insertRowStmt(tx, rowValues(row))
}

// The key's claim and the session in one command, so one commit. A fresh key (nearly every one) is
// inserted plainly: ON CONFLICT's speculative insertion and the INSERT … SELECT that waits on its
// answer cost a keyed checkout about 20 µs of PostgreSQL, a sixth of the session's own insert
// (bench/keyed-statement.ts). Its row takes the session's merchant, mode and created_at ($2, $3,
// $15) rather than parameters of its own to send and parse. A key already there fails that command,
// inserting nothing, and the claim is made again by the full one: the session inserted only if the
// key was claimed (a lapsed claim of the same request taken over), nothing at all if it was not.
const insertFreshKeyStmt = rawStatement('session_insert_fresh_key', `with claim as (
    ${KEY_INSERT}
    values ($2, $3, $19, $20, $21::int, $22::text, null, $15))
  insert into sessions (${COLUMNS}) values (${params(1)})`)
const insertClaimingStmt = rawStatement('session_insert_claiming_key', `with claim as (${CLAIM_SQL})
  insert into sessions (${COLUMNS})
  select ${params(9)}
  where exists (select 1 from claim)`)

/**
 * Inserts a complete session row; with a `claim` (services/idempotency.ts), its Idempotency-Key in
 * the same command. Throws KeyTaken, having inserted nothing, when the key is another request's.
 * Outside a transaction only: a key already there fails the first command, which would end one.
 */
export async function insertSession(tx: Executor, row: SessionRow, claim: KeyClaim | null) {
  if (!claim) return insertSessionRow(tx, row)
  const values = rowValues(row)
  const { answer } = claim
  if (answer) {
    try {
      await insertFreshKeyStmt(tx, [...values, claim.key, claim.fingerprint, answer.status, answer.body])
      return
    } catch (e) {
      if (!isKeyThere(e)) throw e
    }
  }
  const { rowCount } = await insertClaimingStmt(tx, [...claimValues(claim, answer ?? null), ...values])
  if (!rowCount) throw new KeyTaken()
}

// The API's session read (GET /sessions/{id}, its hottest path) as plain SQL (store/prepared.ts tableRows).
const sessionRows = tableRows(sessions)
const scopedRowStmt = rawStatement('session_get_scoped_row', `select ${sessionRows.columns} from sessions where id = $1 and merchant_id = $2 and mode = $3`)

// Unscoped, for the customer's pages, provider notifications and refund settlement.
const byIdStmt = rawStatement('session_get_row', `select ${sessionRows.columns} from sessions where id = $1`)
const lockStmt = rawStatement('session_get_row_for_update', `select ${sessionRows.columns} from sessions where id = $1 for update`)
const statusStmt = rawStatement('session_set_status', 'update sessions set status = $2, updated_at = $3 where id = $1')

export async function getSession(tx: Executor, scope: Scope, id: string): Promise<SessionRow | null> {
  return sessionRows.first(await scopedRowStmt(tx, [id, scope.merchantId, scope.mode]))
}

/** Unscoped, by id: for the customer's pages and provider notifications, which carry no key. */
export async function getSessionUnscoped(tx: Executor, id: string, forUpdate = false): Promise<SessionRow | null> {
  return sessionRows.first(await (forUpdate ? lockStmt : byIdStmt)(tx, [id]))
}

/** A session's new status alone (a full refund's `refunded`), the row locked by the caller. */
export async function setSessionStatus(tx: Executor, id: string, status: SessionStatus, now: Date) {
  await statusStmt(tx, [id, status, now])
}

export async function updateSession(tx: Executor, id: string, patch: Partial<typeof sessions.$inferInsert>, now: Date) {
  const [s] = await tx.update(sessions).set({ ...patch, updatedAt: now }).where(eq(sessions.id, id)).returning()
  return s
}

/** Ids of open sessions past their expiry, claimed so that concurrent sweeps never act twice. */
export async function claimExpired(tx: Executor, now: Date, limit: number): Promise<SessionRow[]> {
  return tx
    .select()
    .from(sessions)
    .where(and(inArray(sessions.status, ['pending', 'processing']), lte(sessions.expiresAt, now)))
    .limit(limit)
    .for('update', { skipLocked: true })
}

export async function insertAttempt(tx: Executor, row: typeof attempts.$inferInsert) {
  const [a] = await tx.insert(attempts).values(row).returning()
  return a
}

export async function getAttemptUnscoped(tx: Executor, id: string, forUpdate = false): Promise<AttemptRow | null> {
  const q = tx.select().from(attempts).where(eq(attempts.id, id))
  const [a] = forUpdate ? await q.for('update') : await q
  return a ?? null
}

export async function openAttempts(tx: Executor, sessionId: string): Promise<AttemptRow[]> {
  return tx.select().from(attempts).where(and(eq(attempts.sessionId, sessionId), eq(attempts.status, 'processing')))
}

export async function updateAttempt(tx: Executor, id: string, patch: Partial<typeof attempts.$inferInsert>, now: Date) {
  await tx.update(attempts).set({ ...patch, updatedAt: now }).where(eq(attempts.id, id))
}

/** Attempts still processing whose next check is due, leased with SKIP LOCKED. */
export async function claimDueAttempts(tx: Executor, now: Date, limit: number): Promise<AttemptRow[]> {
  return tx
    .select()
    .from(attempts)
    .where(and(eq(attempts.status, 'processing'), lte(attempts.nextCheckAt, now)))
    .limit(limit)
    .for('update', { skipLocked: true })
}

export async function bumpAttemptCheck(tx: Executor, id: string, next: Date) {
  await tx.update(attempts).set({ nextCheckAt: next, checks: sql`${attempts.checks} + 1` }).where(eq(attempts.id, id))
}

/** The newest attempt of a session: older open ones were abandoned by a channel switch. */
export async function latestAttemptId(tx: Executor, sessionId: string): Promise<string | null> {
  const [a] = await tx.select({ id: attempts.id }).from(attempts).where(eq(attempts.sessionId, sessionId)).orderBy(sql`${attempts.createdAt} desc`).limit(1)
  return a?.id ?? null
}

export interface SessionFilters {
  /** As readers see it (an open session past expiresAt is `expired`). */
  status?: SessionStatus
  createdGte?: Date
  createdLt?: Date
  /** Every pair must be in the session's metadata. */
  metadata?: Record<string, string>
  /** Some metadata value, under any key, equals this. */
  metadataValue?: string
  id?: string
}

/**
 * The query of one page of a merchant's sessions, newest first (exported for the plan test). A
 * status filter is one index range per stored status it stands for, merged: each range is read in
 * index order, so a page costs about `limit` rows per range even at millions of sessions.
 */
export function sessionPageQuery(tx: Executor, scope: Scope, f: SessionFilters, now: Date, after: Cursor | undefined, limit: number) {
  const common = [
    eq(sessions.merchantId, scope.merchantId),
    eq(sessions.mode, scope.mode),
    f.id !== undefined ? eq(sessions.id, f.id) : undefined,
    f.createdGte ? gte(sessions.createdAt, f.createdGte) : undefined,
    f.createdLt ? lt(sessions.createdAt, f.createdLt) : undefined,
    f.metadata && Object.keys(f.metadata).length > 0 ? sql`${sessions.metadata} @> ${JSON.stringify(f.metadata)}::jsonb` : undefined,
    // A constant jsonpath (the value inlined, JSON-quoted) so the GIN index can serve it.
    f.metadataValue !== undefined ? sql`${sessions.metadata} @? ${`$.* ? (@ == ${JSON.stringify(f.metadataValue)})`}::jsonpath` : undefined,
    before(sessions.createdAt, sessions.id, after),
  ]
  const page = (extra: (SQL | undefined)[]) => tx.select().from(sessions).where(and(...common, ...extra))
    .orderBy(...newestFirst(sessions.createdAt, sessions.id)).limit(limit + 1)
  if (!f.status) return page([])
  const ranges = storedStatusesFor(f.status).map((b) => page([
    eq(sessions.status, b.status),
    b.expiry === 'future' ? gt(sessions.expiresAt, now) : b.expiry === 'past' ? lte(sessions.expiresAt, now) : undefined,
  ]))
  if (ranges.length === 1) return ranges[0]
  const [first, second, ...rest] = ranges
  return unionAll(first, second, ...rest).orderBy(sql`created_at desc`, sql`id desc`).limit(limit + 1)
}

export async function listSessions(tx: Executor, scope: Scope, f: SessionFilters, now: Date, after: Cursor | undefined, limit: number) {
  return toPage(await sessionPageQuery(tx, scope, f, now, after, limit), limit)
}
