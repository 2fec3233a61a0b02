/** The query parameters every list shares, as the services take them. */
import type { PageParams } from '../services/lists.js'

export const page = (q: { limit?: number; starting_after?: string }): PageParams => ({ limit: q.limit, startingAfter: q.starting_after })

// A valid date-time whose offset takes it outside years 1 to 9999 (0001-01-01T00:00:00+00:52) is
// a year PostgreSQL cannot take; nothing was created outside them, so such a bound is no bound.
const FIRST = Date.parse('0001-01-01T00:00:00.000Z')
const LAST = Date.parse('9999-12-31T23:59:59.999Z')
const bound = (iso: string | undefined) => (iso === undefined ? undefined : new Date(Math.min(Math.max(Date.parse(iso), FIRST), LAST)))

export const createdRange = (q: { created_gte?: string; created_lt?: string }) => ({
  createdGte: bound(q.created_gte),
  createdLt: bound(q.created_lt),
})
