import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm'
import type { RecordStatus } from '../../domain/refund-math.js'
import type { Executor } from '../db.js'
import { rawStatement, statement, tableRows } from '../prepared.js'
import { records } from '../schema.js'
import { before, newestFirst, toPage, type Cursor } from './page.js'
import type { Scope } from './scope.js'

export type RecordRow = typeof records.$inferSelect

const p = sql.placeholder
// The session reads' and payments' statements, built once: see store/prepared.ts.
// The session's row through its unique index, the merchant named: on a database sharded by merchant it reaches one shard (docs/scaling.md).
const recordBySessionScopedStmt = statement('record_by_session_scoped', (ex) => ex.select().from(records)
  .where(and(eq(records.sessionId, p('sessionId')), eq(records.merchantId, p('merchantId')), eq(records.mode, p('mode')))))
// The refund path's reads and its one write, as plain SQL (store/prepared.ts tableRows).
const recordRows = tableRows(records)
const recordStmt = rawStatement('record_get_row', `select ${recordRows.columns} from records where id = $1`)
const recordLockStmt = rawStatement('record_get_row_for_update', `select ${recordRows.columns} from records where id = $1 for update`)
const recordLockScopedStmt = rawStatement('record_lock_scoped_row', `select ${recordRows.columns} from records where id = $1 and merchant_id = $2 and mode = $3 for update`)
const recordRefundsStmt = rawStatement('record_set_refunds_row', 'update records set refunded_amount = $2, status = $3 where id = $1')

export async function insertRecord(tx: Executor, row: typeof records.$inferInsert) {
  const [r] = await tx.insert(records).values(row).returning()
  return r
}

/** The session's record, with the session's (merchant, mode), so that the query carries the shard key. */
export async function getRecordBySession(tx: Executor, scope: Scope, sessionId: string): Promise<RecordRow | null> {
  const [r] = await recordBySessionScopedStmt(tx, { sessionId, merchantId: scope.merchantId, mode: scope.mode })
  return r ?? null
}

export async function getRecordUnscoped(tx: Executor, id: string, forUpdate = false): Promise<RecordRow | null> {
  return recordRows.first(await (forUpdate ? recordLockStmt : recordStmt)(tx, [id]))
}

/** The merchant's record, row-locked: every refund decision on it is serialised here. */
export async function lockRecord(tx: Executor, scope: Scope, id: string): Promise<RecordRow | null> {
  return recordRows.first(await recordLockScopedStmt(tx, [id, scope.merchantId, scope.mode]))
}

export async function updateRecord(tx: Executor, id: string, patch: Partial<typeof records.$inferInsert>) {
  const [r] = await tx.update(records).set(patch).where(eq(records.id, id)).returning()
  return r
}

/**
 * A record's refunded amount and status, as recomputed from its refunds. The caller holds the
 * record's lock, so its row with these two set is the stored one: no RETURNING to parse and map.
 */
export async function setRecordRefunds(tx: Executor, record: RecordRow, refundedAmount: number, status: RecordStatus): Promise<RecordRow> {
  await recordRefundsStmt(tx, [record.id, refundedAmount, status])
  return Object.assign({}, record, { refundedAmount, status })
}

export async function getRecord(tx: Executor, scope: Scope, id: string): Promise<RecordRow | null> {
  const [r] = await tx.select().from(records).where(and(eq(records.id, id), eq(records.merchantId, scope.merchantId), eq(records.mode, scope.mode)))
  return r ?? null
}

/** The records of these sessions (at most one each), for a page of sessions in one query. */
export async function recordsOfSessions(tx: Executor, sessionIds: string[]): Promise<RecordRow[]> {
  if (sessionIds.length === 0) return []
  return tx.select().from(records).where(inArray(records.sessionId, sessionIds))
}

export interface RecordFilters {
  sessionId?: string
  status?: RecordStatus
  createdGte?: Date
  createdLt?: Date
}

/** One page of a merchant's records, newest first (exported for the plan test). */
export function recordPageQuery(tx: Executor, scope: Scope, f: RecordFilters, after: Cursor | undefined, limit: number) {
  return tx.select().from(records).where(and(
    eq(records.merchantId, scope.merchantId),
    eq(records.mode, scope.mode),
    f.sessionId !== undefined ? eq(records.sessionId, f.sessionId) : undefined,
    f.status !== undefined ? eq(records.status, f.status) : undefined,
    f.createdGte ? gte(records.createdAt, f.createdGte) : undefined,
    f.createdLt ? lt(records.createdAt, f.createdLt) : undefined,
    before(records.createdAt, records.id, after),
  )).orderBy(...newestFirst(records.createdAt, records.id)).limit(limit + 1)
}

export async function listRecords(tx: Executor, scope: Scope, f: RecordFilters, after: Cursor | undefined, limit: number) {
  return toPage(await recordPageQuery(tx, scope, f, after, limit), limit)
}

