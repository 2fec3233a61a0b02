/**
 * The migration runner (docs/operate.md, "Upgrades"). It keeps drizzle's bookkeeping (the table
 * drizzle.__drizzle_migrations, one row per migration, ordered by the journal's `when`) so a database
 * migrated by an earlier Till carries on, but applies each migration on its own rather than all in
 * one transaction:
 * - a plain migration runs in a transaction of its own with a short lock_timeout: an ALTER TABLE that
 *   would queue behind a long transaction (and so make every write queue behind it) gives up and is
 *   tried again a moment later, so writes wait at most that long;
 * - a migration whose statements build or drop indexes CONCURRENTLY runs outside any transaction
 *   (PostgreSQL refuses them inside one), one statement at a time. A concurrent build that fails
 *   leaves an INVALID index that writes still pay for: it is dropped at once, and one found left over
 *   by a build that died with its process is dropped and built again on the next run.
 */
import { readMigrationFiles } from 'drizzle-orm/migrator'
import type pg from 'pg'

export interface MigrationLog {
  info(msg: string): void
  warn(msg: string): void
}

export interface MigrateOptions {
  /** How long one statement of a plain migration may wait for a lock before the migration is tried again. */
  lockTimeoutMs?: number
  /** How many times a plain migration is tried when it could not get its locks. */
  attempts?: number
  log?: MigrationLog
}

const quiet: MigrationLog = { info() {}, warn() {} }
const CONCURRENT = /^\s*(create\s+(unique\s+)?index\s+concurrently|drop\s+index\s+concurrently)\b/i
const CREATE_CONCURRENT = /^\s*create\s+(?:unique\s+)?index\s+concurrently\s+(?:if\s+not\s+exists\s+)?("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)/i
const LOCK_NOT_AVAILABLE = '55P03'

const bare = (s: string) => s.replace(/^\s*--.*$/gm, '').trim()
/** A migration's statements, leaving out what is only comments or blank space between breakpoints. */
function statements(sql: string[]): string[] {
  return sql.filter((s) => bare(s).length > 0)
}

/** Whether a migration is applied outside a transaction: any of its statements is CONCURRENTLY. */
export function isConcurrent(sql: string[]): boolean {
  const stmts = statements(sql)
  const concurrent = stmts.filter((s) => CONCURRENT.test(bare(s)))
  if (concurrent.length === 0) return false
  if (concurrent.length !== stmts.length) {
    // Anything else would run outside a transaction too, and half of it could stay applied after a failure.
    throw new Error('a migration that creates or drops an index CONCURRENTLY must hold nothing else: put its other statements in a migration of their own')
  }
  return true
}

/** Applies the pending migrations of `folder` on `client`, which must hold the migration lock. */
export async function applyMigrations(client: pg.ClientBase, folder: string, options: MigrateOptions = {}): Promise<number> {
  const log = options.log ?? quiet
  await client.query('create schema if not exists drizzle')
  await client.query('create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)')
  const last = (await client.query<{ created_at: string }>('select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1')).rows[0]
  const pending = readMigrationFiles({ migrationsFolder: folder }).filter((m) => !last || Number(last.created_at) < m.folderMillis)
  // Checked for all before any runs: a refused migration stops the start with nothing half applied.
  const plans = pending.map((m) => ({ m, concurrent: isConcurrent(m.sql) }))
  for (const { m, concurrent } of plans) {
    const started = performance.now()
    const record = () => client.query('insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', [m.hash, m.folderMillis])
    if (concurrent) {
      await applyConcurrently(client, statements(m.sql), log)
      await record()
    } else {
      await applyInTransaction(client, statements(m.sql), record, options, log)
    }
    log.info(`migration ${m.folderMillis} applied in ${Math.round(performance.now() - started)} ms`)
  }
  return pending.length
}

/** The statements and their bookkeeping row (`record`) commit together. */
async function applyInTransaction(client: pg.ClientBase, stmts: string[], record: () => Promise<unknown>, options: MigrateOptions, log: MigrationLog) {
  const lockTimeoutMs = options.lockTimeoutMs ?? 2000
  const attempts = options.attempts ?? 30
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query('begin')
      await client.query(`set local lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`)
      for (const s of stmts) await client.query(s)
      await record()
      await client.query('commit')
      return
    } catch (e) {
      await client.query('rollback').catch(() => {})
      if ((e as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= attempts) throw e
      log.warn(`migration waited ${lockTimeoutMs} ms for a lock (attempt ${attempt} of ${attempts}): tried again shortly, writes go on meanwhile`)
      await new Promise((r) => setTimeout(r, Math.min(5000, 250 * attempt)))
    }
  }
}

/** Whether an index of this name exists, and if so whether it is valid (a finished build). */
async function indexState(client: pg.ClientBase, name: string): Promise<'absent' | 'valid' | 'invalid'> {
  const { rows } = await client.query<{ valid: boolean }>(
    `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
     where c.relname = $1 and c.relnamespace = current_schema()::regnamespace`, [name])
  return rows.length === 0 ? 'absent' : rows[0].valid ? 'valid' : 'invalid'
}

const unquote = (ident: string) => ident.startsWith('"') ? ident.slice(1, -1).replace(/""/g, '"') : ident.toLowerCase()
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

async function applyConcurrently(client: pg.ClientBase, stmts: string[], log: MigrationLog) {
  for (const s of stmts) {
    const created = CREATE_CONCURRENT.exec(bare(s))
    if (!created) {
      await client.query(s)
      continue
    }
    const name = unquote(created[1])
    const state = await indexState(client, name)
    if (state === 'valid') {
      log.info(`index ${name} already built: skipped`)
      continue
    }
    if (state === 'invalid') {
      log.warn(`index ${name} was left INVALID by a concurrent build that did not finish: dropped and built again`)
      await client.query(`drop index concurrently if exists ${quote(name)}`)
    }
    log.info(`building index ${name} concurrently (writes go on meanwhile)`)
    try {
      await client.query(s)
    } catch (e) {
      if ((await indexState(client, name).catch(() => 'absent')) === 'invalid') {
        await client.query(`drop index concurrently if exists ${quote(name)}`).catch(() => {})
      }
      throw e
    }
  }
}
