/**
 * Keyset pages, newest first, for every merchant-facing list: ordered by (created_at, id) so rows made
 * in the same millisecond keep one order, and a page starts strictly after the previous page's last
 * row. Each list has an index ending in (created_at, id), so a page reads about `limit` rows however
 * long the list is.
 */
import { desc, sql, type SQL } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'

export interface Cursor {
  createdAt: Date
  id: string
}

/** The row a page starts after: its timestamp and id. */
export const before = (createdAt: PgColumn, id: PgColumn, after: Cursor | undefined): SQL | undefined =>
  after ? sql`(${createdAt}, ${id}) < (${after.createdAt}, ${after.id})` : undefined

export const newestFirst = (createdAt: PgColumn, id: PgColumn) => [desc(createdAt), desc(id)]

/** One more row than asked tells whether there is more. */
export const toPage = <T>(rows: T[], limit: number) => ({ rows: rows.slice(0, limit), hasMore: rows.length > limit })
