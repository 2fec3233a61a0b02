/**
 * Reading back what a merchant made: sessions, records and refunds, one by one and in pages, newest
 * first. Plain functions of (deps, scope, filters, page), shared by the REST API and the console.
 */
import { InvalidField, NotFound } from '../domain/errors.js'
import type { SessionStatus } from '../domain/session-machine.js'
import type { Cursor } from '../store/repos/page.js'
import * as records from '../store/repos/records.js'
import * as refundRepo from '../store/repos/refunds.js'
import type { Scope } from '../store/repos/scope.js'
import * as sessions from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { recordWithRefunds, refundObject, sessionView } from './present.js'

export { readSession } from './sessions.js'

export interface PageParams {
  /** 1–100; default 10. */
  limit?: number
  /** The id of the last object of the previous page. */
  startingAfter?: string
}

export interface Page<T> {
  data: T[]
  hasMore: boolean
}

export const DEFAULT_LIMIT = 10

export interface SessionListFilters {
  status?: SessionStatus
  createdGte?: Date
  createdLt?: Date
  /** Sessions whose metadata holds every one of these pairs. */
  metadata?: Record<string, string>
  /**
   * The console's search box: a session id, a record id or a refund id finds its session; any other
   * text finds the sessions with a metadata value (under any key) exactly equal to it.
   */
  search?: string
}

export interface RecordListFilters {
  sessionId?: string
  status?: 'paid' | 'partially_refunded' | 'refunded' | 'refunding'
  createdGte?: Date
  createdLt?: Date
}

export interface RefundListFilters {
  recordId?: string
  createdGte?: Date
  createdLt?: Date
}

/** The row a page starts after, which must be the merchant's own: anything else is a field error. */
async function cursor<T extends Cursor>(id: string | undefined, find: (id: string) => Promise<T | null>, noun: string): Promise<T | undefined> {
  if (id === undefined) return undefined
  const row = await find(id)
  if (!row) throw new InvalidField('starting_after', `no such ${noun}`)
  return row
}

/** A search text, resolved to the filter it means; null when it can match nothing. */
async function searchFilter(deps: Deps, scope: Scope, text: string): Promise<sessions.SessionFilters | null> {
  if (text.startsWith('sess_')) return { id: text }
  if (text.startsWith('rec_')) {
    const r = await records.getRecord(deps.db, scope, text)
    return r ? { id: r.sessionId } : null
  }
  if (text.startsWith('ref_')) {
    const f = await refundRepo.getRefund(deps.db, scope, text)
    const r = f && (await records.getRecord(deps.db, scope, f.recordId))
    return r ? { id: r.sessionId } : null
  }
  return { metadataValue: text }
}

export async function listSessions(deps: Deps, scope: Scope, filters: SessionListFilters, page: PageParams): Promise<Page<ReturnType<typeof sessionView>>> {
  const limit = page.limit ?? DEFAULT_LIMIT
  const { search, ...rest } = filters
  const searched = search === undefined ? {} : await searchFilter(deps, scope, search)
  if (searched === null) return { data: [], hasMore: false }
  const after = await cursor(page.startingAfter, (id) => sessions.getSession(deps.db, scope, id), 'session')
  const now = deps.clock()
  const { rows, hasMore } = await sessions.listSessions(deps.db, scope, { ...rest, ...searched }, now, after, limit)
  // A paid (or refunded) session shows its record: fetched for the whole page at once.
  const paid = rows.filter((s) => s.status === 'paid' || s.status === 'refunded').map((s) => s.id)
  const bySession = new Map((await records.recordsOfSessions(deps.db, paid)).map((r) => [r.sessionId, r]))
  return { data: rows.map((s) => sessionView(s, bySession.get(s.id) ?? null, deps.config.baseUrl, now)), hasMore }
}

export async function getRecord(deps: Deps, scope: Scope, id: string) {
  const r = await records.getRecord(deps.db, scope, id)
  if (!r) throw new NotFound()
  return recordWithRefunds(r, await refundRepo.refundsOfRecords(deps.db, [r.id]))
}

export async function listRecords(deps: Deps, scope: Scope, filters: RecordListFilters, page: PageParams): Promise<Page<ReturnType<typeof recordWithRefunds>>> {
  const limit = page.limit ?? DEFAULT_LIMIT
  const after = await cursor(page.startingAfter, (id) => records.getRecord(deps.db, scope, id), 'record')
  const { rows, hasMore } = await records.listRecords(deps.db, scope, filters, after, limit)
  const refunds = await refundRepo.refundsOfRecords(deps.db, rows.map((r) => r.id))
  return { data: rows.map((r) => recordWithRefunds(r, refunds.filter((f) => f.recordId === r.id))), hasMore }
}

export async function getRefund(deps: Deps, scope: Scope, id: string) {
  const f = await refundRepo.getRefund(deps.db, scope, id)
  if (!f) throw new NotFound()
  return refundObject(f)
}

export async function listRefunds(deps: Deps, scope: Scope, filters: RefundListFilters, page: PageParams): Promise<Page<ReturnType<typeof refundObject>>> {
  const limit = page.limit ?? DEFAULT_LIMIT
  const after = await cursor(page.startingAfter, (id) => refundRepo.getRefund(deps.db, scope, id), 'refund')
  const { rows, hasMore } = await refundRepo.listRefunds(deps.db, scope, filters, after, limit)
  return { data: rows.map(refundObject), hasMore }
}
