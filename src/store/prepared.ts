/**
 * Hot-path statements, built once. Drizzle turns a query builder into SQL text on every call, which
 * costs more CPU (about 150 µs) than PostgreSQL spends answering a lookup by primary key; the API's
 * hot paths (key lookup, checkout, session read, refunds) run a handful each. A statement made here
 * is built on first use, then run by name on the executor it is given (the pool, or the connection
 * of the caller's transaction), and PostgreSQL parses and plans it once per connection.
 *
 * Running one prepared query on another executor's connection relies on two fields Drizzle's
 * node-postgres driver keeps (`client` on its session and on its prepared query); `clientOf` checks
 * them so that a Drizzle upgrade that moves them fails loudly in every test, not silently.
 *
 * Behind a transaction pooler (openPool's `statements: 'unnamed'`) the same statements run unnamed:
 * parsed on every run, but valid on whichever server connection the pooler picks.
 */
import { getTableColumns } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import type pg from 'pg'
import { namesStatements, type Executor } from './db.js'

type PgClient = pg.Pool | pg.PoolClient

interface Runnable<R> {
  execute(values?: Record<string, unknown>): Promise<R>
}

function clientOf(ex: Executor): PgClient {
  const client = (ex._.session as unknown as { client?: PgClient }).client
  if (!client || typeof client.query !== 'function') throw new Error('drizzle session has no pg client: store/prepared.ts needs updating')
  return client
}

/**
 * A Drizzle query with `sql.placeholder(…)` parameters, run with values. `build` is called once, with
 * the first executor; its result maps rows exactly as the unprepared query would.
 */
export function statement<V extends Record<string, unknown>, R>(name: string, build: (ex: Executor) => { prepare(name: string): Runnable<R> }) {
  // One template per mode; pg takes an empty name for the unnamed statement.
  const templates = new Map<boolean, Runnable<R> & { client?: PgClient }>()
  return (ex: Executor, values: V): Promise<R> => {
    const client = clientOf(ex)
    const named = namesStatements(client)
    let template = templates.get(named)
    if (!template) {
      template = build(ex).prepare(named ? `till_${name}` : '')
      if (!('client' in template)) throw new Error('drizzle prepared query has no client: store/prepared.ts needs updating')
      templates.set(named, template)
    }
    const bound = Object.create(template) as Runnable<R> & { client: PgClient }
    bound.client = client
    return bound.execute(values)
  }
}

/** A plain SQL statement with $1… parameters and no row mapping, run (by name, unless unnamed) on the executor's connection. */
export function rawStatement<Row extends pg.QueryResultRow = pg.QueryResultRow>(name: string, text: string) {
  const named = { name: `till_${name}`, text }
  const unnamed = { text }
  return (ex: Executor, values: unknown[]): Promise<pg.QueryResult<Row>> => {
    const client = clientOf(ex)
    return client.query<Row>({ ...(namesStatements(client) ? named : unnamed), values })
  }
}

/** A prepared INSERT's values: `row` over the schema's `defaults`, a key left undefined keeping its default as an omitted column would. */
export function withDefaults<T extends object>(defaults: Partial<T>, row: T): T {
  // Object.assign, not spread: V8 (Node 20) takes ~15 µs to spread one object over another sharing its keys.
  const out = Object.assign({}, defaults, row) as Record<string, unknown>
  for (const k in defaults) if (out[k] === undefined) out[k] = defaults[k]
  return out as T
}

/**
 * A table's rows as plain SQL reads them: its column list for a SELECT, and a mapper from a row of
 * those columns to the table's field names. pg's own parsers give the values (timestamptz as a Date,
 * jsonb parsed, integers as numbers), as Drizzle maps them for the tables used here (no custom
 * column types); cheaper than Drizzle's mapping of each column on a hot path.
 */
export function tableRows<T extends PgTable>(table: T) {
  const fields = Object.entries(getTableColumns(table)).map(([key, column]) => [key, column.name] as const)
  const map = (row: Record<string, unknown>): T['$inferSelect'] => {
    const out: Record<string, unknown> = {}
    for (const [key, name] of fields) out[key] = row[name]
    return out as T['$inferSelect']
  }
  return {
    columns: fields.map(([, name]) => `"${name}"`).join(', '),
    /** $1… for an INSERT of every column, in the order of `columns`. */
    placeholders: fields.map((_, i) => `$${i + 1}`).join(', '),
    /** A row's values in the order of `columns` (pg encodes them; a jsonb array would need JSON.stringify). */
    values: (row: T['$inferSelect']): unknown[] => fields.map(([key]) => (row as Record<string, unknown>)[key]),
    map,
    /** The first row of a result, mapped, or null. */
    first: ({ rows }: { rows: Record<string, unknown>[] }): T['$inferSelect'] | null => (rows[0] ? map(rows[0]) : null),
  }
}
