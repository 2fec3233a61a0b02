import { and, eq, lt, sql } from 'drizzle-orm'
import { uniqueViolation, type Executor } from '../db.js'
import { rawStatement, statement } from '../prepared.js'
import { idempotencyKeys } from '../schema.js'
import type { Scope } from './scope.js'

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect

const p = sql.placeholder
// Every POST with a key claims and answers it: built once (store/prepared.ts).
const claimStmt = statement('idempotency_claim', (ex) => ex.insert(idempotencyKeys)
  .values({ merchantId: p('merchantId'), mode: p('mode'), key: p('key'), fingerprint: p('fingerprint'), lockedUntil: p('lockedUntil'), createdAt: p('createdAt') })
  .onConflictDoNothing()
  .returning({ key: idempotencyKeys.key }))

/** A key's answer, stored by the work's own last statement (store/repos/events.ts) or alone (saveResponse). */
export interface KeyAnswer {
  merchantId: string
  mode: string
  key: string
  status: number
  body: string
}
/** The UPDATE that stores an answer, its parameters numbered from `n` in the order of answerValues. */
export const answerSql = (n: number) =>
  `update idempotency_keys set response_status = $${n + 3}::int, response_body = $${n + 4}::text, locked_until = null where merchant_id = $${n} and mode = $${n + 1} and key = $${n + 2}`
export const answerValues = (a: KeyAnswer) => [a.merchantId, a.mode, a.key, a.status, a.body]
const saveStmt = rawStatement('idempotency_save_row', answerSql(1))

const where = (scope: Scope, key: string) =>
  and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.mode, scope.mode), eq(idempotencyKeys.key, key))

/**
 * Claims the key for this request. Returns null when claimed; otherwise the existing row. A row
 * whose lease lapsed without a response (its process died) is taken over by this request.
 */
export async function claimKey(tx: Executor, scope: Scope, key: string, fingerprint: string, now: Date, leaseMs: number) {
  const lockedUntil = new Date(now.getTime() + leaseMs)
  const inserted = await claimStmt(tx, { merchantId: scope.merchantId, mode: scope.mode, key, fingerprint, lockedUntil, createdAt: now })
  if (inserted.length) return null
  const takenOver = await tx
    .update(idempotencyKeys)
    .set({ lockedUntil })
    .where(and(where(scope, key), eq(idempotencyKeys.fingerprint, fingerprint), sql`${idempotencyKeys.responseStatus} is null`, lt(idempotencyKeys.lockedUntil, now)))
    .returning({ key: idempotencyKeys.key })
  if (takenOver.length) return null
  const [row] = await tx.select().from(idempotencyKeys).where(where(scope, key))
  return row
}

export async function saveResponse(tx: Executor, scope: Scope, key: string, status: number, body: string) {
  await saveStmt(tx, answerValues({ merchantId: scope.merchantId, mode: scope.mode, key, status, body }))
}

/** Releases a key still in flight under this lease: not one another request took over after it lapsed. */
export async function releaseKey(tx: Executor, scope: Scope, key: string, lockedUntil: Date) {
  await tx.delete(idempotencyKeys).where(and(where(scope, key), sql`${idempotencyKeys.responseStatus} is null`, eq(idempotencyKeys.lockedUntil, lockedUntil)))
}

/** Keys are kept 24 h. */
export async function purgeKeys(tx: Executor, before: Date) {
  await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before))
}

/**
 * A key claimed in the statement or transaction of the work itself (services/idempotency.ts): no
 * commit of its own. `now` is the request's clock, `lockedUntil` its lease; `answer`, when the same
 * statement stores the answer.
 */
export interface KeyClaim {
  merchantId: string
  mode: string
  key: string
  fingerprint: string
  now: Date
  lockedUntil: Date
  answer?: { status: number; body: string }
}

/** The key was taken by another request (or by this one before): answer from its row instead. */
export class KeyTaken extends Error {
  constructor() {
    super('idempotency key taken')
  }
}

/** The key's row inserted, its columns in claimValues' order; alone, a key already there fails the statement (isKeyThere). */
export const KEY_INSERT = 'insert into idempotency_keys (merchant_id, mode, key, fingerprint, response_status, response_body, locked_until, created_at)'
// With claimValues' parameters; the claims below add their ON CONFLICT.
export const FRESH_KEY_SQL = `${KEY_INSERT}
  values ($1, $2, $3, $4, $5::int, $6::text, $7::timestamptz, $8::timestamptz)`

/** The unique violation of a key already there: its statement did nothing, and the claim is for CLAIM_SQL to decide. */
export const isKeyThere = (e: unknown) => uniqueViolation(e) === 'idempotency_keys_merchant_id_mode_key_pk'

// The statement (or a statement's first part, sessions.ts) that inserts the key, or takes over a row of the same request whose lease lapsed without an answer (its
// process died), as claimKey does in two statements. $5/$6 null: in flight until $7; else answered.
export const CLAIM_SQL = `${FRESH_KEY_SQL}
  on conflict (merchant_id, mode, key) do update
    set response_status = excluded.response_status, response_body = excluded.response_body, locked_until = excluded.locked_until
    where idempotency_keys.response_status is null and idempotency_keys.locked_until < excluded.created_at and idempotency_keys.fingerprint = excluded.fingerprint
  returning 1`
export const claimValues = (c: KeyClaim, answer: { status: number; body: string } | null) =>
  [c.merchantId, c.mode, c.key, c.fingerprint, answer?.status ?? null, answer?.body ?? null, answer ? null : c.lockedUntil, c.now]

// An answer made apart from the work's statements (a refusal): the key inserted answered, or its row
// answered if it is this claim's in flight ($9, its lease) or a lapsed claim of the same request.
const answerStmt = rawStatement('idempotency_answer', `${FRESH_KEY_SQL}
  on conflict (merchant_id, mode, key) do update
    set response_status = excluded.response_status, response_body = excluded.response_body, locked_until = null
    where idempotency_keys.response_status is null and idempotency_keys.fingerprint = excluded.fingerprint
      and (idempotency_keys.locked_until < excluded.created_at or idempotency_keys.locked_until = $9::timestamptz)
  returning 1`)

/** Stores an answer for this claim: false when the key is another request's. */
export async function answerKey(tx: Executor, claim: KeyClaim, answer: { status: number; body: string }) {
  const { rowCount } = await answerStmt(tx, [...claimValues(claim, answer), claim.lockedUntil])
  return rowCount === 1
}

export async function findKey(tx: Executor, scope: Scope, key: string): Promise<IdempotencyRow | undefined> {
  const [row] = await tx.select().from(idempotencyKeys).where(where(scope, key))
  return row
}
