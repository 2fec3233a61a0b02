/** The query parameters every list shares, as the services take them. */
import type { PageParams } from '../services/lists.js'

export const page = (q: { limit?: number; starting_after?: string }): PageParams => ({ limit: q.limit, startingAfter: q.starting_after })

export const createdRange = (q: { created_gte?: string; created_lt?: string }) => ({
  createdGte: q.created_gte === undefined ? undefined : new Date(q.created_gte),
  createdLt: q.created_lt === undefined ? undefined : new Date(q.created_lt),
})
