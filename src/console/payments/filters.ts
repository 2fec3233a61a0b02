/**
 * The payments list's filters, read from its query string one way only: a filter given twice, a NUL
 * in the search (PostgreSQL text cannot hold one) or a date that is not a real day of years 1–9999
 * (what timestamps take) is refused with what to fix, rather than guessed at or failing in the query.
 */
import { SESSION_STATUSES, type SessionStatus } from '../../domain/session-machine.js'
import type { ConsoleKey } from '../i18n/index.js'

/** The filters as the form shows them again. */
export interface ListQuery {
  status: string
  from: string
  to: string
  q: string
}

export interface ListFilters {
  status?: SessionStatus
  createdGte?: Date
  createdLt?: Date
  search?: string
  after?: string
}

export type ListReading =
  | { query: ListQuery; filters: ListFilters; refused?: undefined }
  | { query: ListQuery; refused: { key: ConsoleKey; vars?: Record<string, string> } }

const PARAMS = ['status', 'from', 'to', 'q', 'after'] as const
const DAY_MS = 86_400_000
const CURSOR = /^sess_\w{1,40}$/

/** A day written yyyy-mm-dd: its start in UTC, undefined when empty, null when not a real day of years 1–9999. */
export function dayOf(text: string): Date | undefined | null {
  if (text === '') return undefined
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text < '0001') return null
  const d = new Date(`${text}T00:00:00Z`)
  // 2026-02-30 parses as a day in March, or not at all: only a day that reads back the same is one.
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text) ? d : null
}

export function readListQuery(raw: Record<string, unknown>): ListReading {
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : '')
  const query: ListQuery = { status: text('status'), from: text('from'), to: text('to'), q: text('q').replaceAll('\0', '') }
  const repeated = PARAMS.find((name) => Array.isArray(raw[name]))
  if (repeated) return { query, refused: { key: 'payments.repeatedFilter', vars: { param: repeated } } }
  if (text('q').includes('\0')) return { query, refused: { key: 'payments.nulSearch' } }
  const from = dayOf(query.from)
  const to = dayOf(query.to)
  if (from === null || to === null) return { query, refused: { key: 'payments.badDate' } }
  const status = (SESSION_STATUSES as readonly string[]).includes(query.status) ? (query.status as SessionStatus) : undefined
  const next = to && new Date(to.getTime() + DAY_MS)
  return {
    query: { ...query, status: status ?? '' },
    filters: {
      status,
      createdGte: from,
      // The day after 9999-12-31 is past anything stored, and past what a timestamp parameter takes: no bound.
      createdLt: next && next.getUTCFullYear() <= 9999 ? next : undefined,
      search: query.q.trim() || undefined,
      after: CURSOR.test(text('after')) ? text('after') : undefined,
    },
  }
}
