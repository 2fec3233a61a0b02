/**
 * The activity log's filters (member, action) and its cursor, read from the query string one way
 * only, as the page and its CSV export share them: a filter given twice, or a value that names no
 * member id or action, is refused with what to fix rather than guessed at.
 */
import { isActivityAction, type ActivityFilter } from '../../services/activity.js'
import type { ConsoleKey } from '../i18n/index.js'

/** The filters as the form shows them again, and as links keep them. */
export interface ActivityQuery {
  member: string
  action: string
}

export type ActivityReading =
  | { query: ActivityQuery; filter: ActivityFilter; before?: number; refused?: undefined }
  | { query: ActivityQuery; refused: { key: ConsoleKey; vars?: Record<string, string> } }

const PARAMS = ['member', 'action', 'before'] as const
const MEMBER = /^mem_\w{1,40}$/

export function readActivityQuery(raw: Record<string, unknown>): ActivityReading {
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : '')
  const query: ActivityQuery = { member: text('member').slice(0, 64), action: text('action').slice(0, 64) }
  const repeated = PARAMS.find((name) => Array.isArray(raw[name]))
  if (repeated) return { query, refused: { key: 'payments.repeatedFilter', vars: { param: repeated } } }
  if ((query.member && !MEMBER.test(query.member)) || (query.action && !isActivityAction(query.action))) {
    return { query: { member: '', action: '' }, refused: { key: 'activity.badFilter' } }
  }
  const before = /^\d{1,18}$/.test(text('before')) ? Number(text('before')) : undefined
  return { query, filter: { memberId: query.member || undefined, action: query.action || undefined }, before }
}

/** The query string of the list (or its export) with these filters, and more parameters after them. */
export const withFilters = (query: ActivityQuery, more: [string, string][] = []) =>
  new URLSearchParams([...Object.entries(query).filter(([, v]) => v), ...more]).toString()
