/**
 * What a checkout's Idempotency-Key costs PostgreSQL, statement by statement (part of `npm run bench --
 * keyed`): the session's INSERT without a key and with one (the key claimed and answered in the same
 * command, src/store/repos/sessions.ts), run by Till's own repository code on one connection each,
 * with PostgreSQL's CPU per statement from the backend's /proc/<pid>/schedstat (nanoseconds: steadier
 * than any throughput on a shared machine) and the WAL each wrote. Variants of the keys' table, each a
 * copy of the migrated tables in a schema of its own: the `idempotency_created_idx` btree (kept for
 * the 24 h purge) as BRIN or left out, the stored answer left empty, and the full claim's statement
 * (ON CONFLICT DO UPDATE) and its parts, to price each part of the key; and the key kept as columns of
 * the session's own row, a design not built, to price the alternative.
 * Linux only (schedstat); the bench's PostgreSQL must run on this machine.
 */
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { newId } from '../src/domain/ids.js'
import type { Executor } from '../src/store/db.js'
import { CLAIM_SQL, FRESH_KEY_SQL } from '../src/store/repos/idempotency.js'
import { insertSession, sessionInsert, type SessionRow } from '../src/store/repos/sessions.js'
import { sessionCreated } from '../src/services/present.js'
import { fmt, table } from './report.js'

const N = Number(process.env.BENCH_KEYED_STATEMENTS ?? 600)
const ROUNDS = Number(process.env.BENCH_KEYED_STATEMENT_ROUNDS) || 11

interface Variant {
  name: string
  schema: string
  keyed: boolean
  emptyAnswer?: boolean
  /** The key, its fingerprint and answer as columns of the session's own row (one unique partial index), not a row of idempotency_keys. */
  onSessionRow?: boolean
  /** The key's row claimed by another statement than Till's fresh-key one (KEY_STATEMENTS). */
  keyStatement?: string
}
const SCHEMAS: Record<string, string> = {
  keyed_btree: '',
  keyed_brin: 'drop index idempotency_created_idx_copy; create index on idempotency_keys using brin (created_at)',
  keyed_none: 'drop index idempotency_created_idx_copy',
  keyed_on_row: `alter table sessions add column idempotency_key text, add column idempotency_fingerprint text, add column idempotency_answer text;
    create unique index on sessions (merchant_id, mode, idempotency_key) where idempotency_key is not null`,
}
const VARIANTS: Variant[] = [
  { name: 'without a key', schema: 'keyed_btree', keyed: false },
  { name: 'with a key (as built: a fresh key inserted without ON CONFLICT)', schema: 'keyed_btree', keyed: true },
  { name: 'with a key, created_at indexed by BRIN', schema: 'keyed_brin', keyed: true },
  { name: 'with a key, created_at not indexed', schema: 'keyed_none', keyed: true },
  { name: 'with a key, its answer left empty', schema: 'keyed_btree', keyed: true, emptyAnswer: true },
  { name: 'with a key, the full claim (ON CONFLICT DO UPDATE, INSERT … SELECT: every key before 2026-11-28, a taken key\'s second try now)', schema: 'keyed_btree', keyed: true, keyStatement: 'full' },
  { name: 'with a key, ON CONFLICT DO NOTHING, INSERT … SELECT', schema: 'keyed_btree', keyed: true, keyStatement: 'nothing' },
  { name: 'with a key, without ON CONFLICT, INSERT … SELECT', schema: 'keyed_btree', keyed: true, keyStatement: 'plainSelect' },
  { name: 'with a key on the session\'s own row (not built: a design to weigh)', schema: 'keyed_on_row', keyed: true, onSessionRow: true },
  { name: 'with a key on the session\'s own row, without ON CONFLICT (not built)', schema: 'keyed_on_row', keyed: true, onSessionRow: true, keyStatement: 'onRowPlain' },
].filter((_, i) => i === 0 || !process.env.BENCH_KEYED_VARIANTS || process.env.BENCH_KEYED_VARIANTS.split(',').includes(String(i)))

const ON_ROW = `insert into sessions (${sessionInsert.columns}, idempotency_key, idempotency_fingerprint, idempotency_answer)
  values (${sessionInsert.params(1)}, $19, $20, $21) on conflict do nothing`

// The parts of the claim's cost, apart: ON CONFLICT's speculative insertion, and the INSERT … SELECT that waits on its answer.
const KEY_STATEMENTS: Record<string, string> = {
  full: `with claim as (${CLAIM_SQL}) insert into sessions (${sessionInsert.columns}) select ${sessionInsert.params(9)} where exists (select 1 from claim)`,
  nothing: `with claim as (${FRESH_KEY_SQL} on conflict do nothing returning 1) insert into sessions (${sessionInsert.columns}) select ${sessionInsert.params(9)} where exists (select 1 from claim)`,
  plainSelect: `with claim as (${FRESH_KEY_SQL} returning 1) insert into sessions (${sessionInsert.columns}) select ${sessionInsert.params(9)} where exists (select 1 from claim)`,
}

const schedNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export async function keyedStatements(url: string, pool: pg.Pool, merchantId: string): Promise<string | null> {
  const { rows: [{ pid }] } = await pool.query('select pg_backend_pid() as pid')
  if (!N || !existsSync(`/proc/${pid}/schedstat`)) return null
  const conns = new Map<string, { ex: Executor; client: pg.Client; pid: number }>()
  try {
    for (const [schema, change] of Object.entries(SCHEMAS)) {
      // Copies of the two tables with their indexes (the copy's index names end in _copy), the merchant's foreign key as migrated.
      await pool.query(`drop schema if exists ${schema} cascade; create schema ${schema};
        create table ${schema}.sessions (like public.sessions including all);
        alter table ${schema}.sessions add foreign key (merchant_id) references public.merchants (id);
        create table ${schema}.idempotency_keys (like public.idempotency_keys including all);
        alter index ${schema}.idempotency_keys_created_at_idx rename to idempotency_created_idx_copy`)
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` })
      await client.connect()
      if (change) await client.query(change)
      conns.set(schema, { ex: drizzle(client) as unknown as Executor, client, pid: (await client.query('select pg_backend_pid() as pid')).rows[0].pid })
    }
    const run = async (v: Variant, n: number) => {
      const { ex, client } = conns.get(v.schema)!
      for (let i = 0; i < n; i++) {
        const now = new Date()
        const row: SessionRow = {
          id: newId('sess'), merchantId, mode: 'test', status: 'pending', amount: 9900, currency: 'CNY', description: null, metadata: { order: 'bench-1' },
          successUrl: null, cancelUrl: null, locale: null, chosenProvider: 'mock', providerConfigId: null, expiresAt: new Date(now.getTime() + 3600_000),
          createdAt: now, updatedAt: now, customerEmail: null, paymentLinkId: null,
        }
        const answer = v.emptyAnswer ? '' : JSON.stringify(sessionCreated(row, 'http://127.0.0.1:3000'))
        const claim = v.keyed ? { merchantId, mode: 'test', key: crypto.randomUUID(), fingerprint: 'f'.repeat(64), now, lockedUntil: new Date(now.getTime() + 60_000), answer: { status: 201, body: answer } } : null
        if (v.onSessionRow) await client.query({ name: `session_insert_key_on_row${v.keyStatement ?? ''}`, text: v.keyStatement ? ON_ROW.replace(' on conflict do nothing', '') : ON_ROW, values: [...sessionInsert.values(row), claim!.key, claim!.fingerprint, answer] })
        else if (v.keyStatement) await client.query({ name: `session_insert_key_${v.keyStatement}`, text: KEY_STATEMENTS[v.keyStatement], values: [claim!.merchantId, claim!.mode, claim!.key, claim!.fingerprint, 201, answer, null, now, ...sessionInsert.values(row)] })
        else await insertSession(ex, row, claim)
      }
    }
    const cpu = new Map<string, number[]>()
    const wal = new Map<string, number[]>()
    for (let round = 0; round < ROUNDS; round++) {
      // The order reverses every round: no variant always follows the same one.
      for (const v of round % 2 ? VARIANTS.slice().reverse() : VARIANTS) {
        const c = conns.get(v.schema)!
        await run(v, 50)
        const lsn = (await c.client.query('select pg_current_wal_lsn()::text as l')).rows[0].l
        const t0 = schedNs(c.pid)
        await run(v, N)
        const used = (schedNs(c.pid) - t0) / 1000 / N
        const bytes = Number((await c.client.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint as d', [lsn])).rows[0].d) / N
        cpu.set(v.name, [...(cpu.get(v.name) ?? []), used])
        wal.set(v.name, [...(wal.get(v.name) ?? []), bytes])
      }
    }
    const plain = median(cpu.get(VARIANTS[0].name)!)
    const keyed = median(cpu.get(VARIANTS[1].name)!)
    // The least disturbed run of each: on a shared machine other processes only ever add to a run's CPU.
    const plainMin = Math.min(...cpu.get(VARIANTS[0].name)!)
    const rows = VARIANTS.map((v) => {
      const c = cpu.get(v.name)!
      return [v.name, `**${median(c).toFixed(1)}**`, `${Math.min(...c).toFixed(0)}–${Math.max(...c).toFixed(0)}`, `${(median(c) / plain).toFixed(2)}×`,
        v.keyed ? `${(median(c) - keyed).toFixed(1)}` : '', `${(Math.min(...c) / plainMin).toFixed(2)}×`, `${fmt(median(wal.get(v.name)!))} B`]
    })
    console.log(`  the key's statement: ${rows.map((r) => `${r[0]} ${r[1]} µs`).join(' | ')}`)
    return [
      `### What the key costs PostgreSQL: the checkout's one statement, alone`,
      '',
      `Till's own \`insertSession\` on one connection per variant, ${fmt(N)} statements a run, ${ROUNDS} rounds (the order reversed every round); CPU of the connection's backend from /proc/<pid>/schedstat, so the statement's own work and its commit (WAL flush) and nothing else; medians of the rounds, and the ratio of the fastest runs (other processes on the cores only ever add to a run's CPU). Load average ${os.loadavg()[0].toFixed(1)} at the end.`,
      '',
      table(['the statement', 'PostgreSQL CPU µs per statement', 'rounds (min–max)', 'of without a key', 'µs against the key as built', 'fastest run, of without a key', 'WAL per statement'], rows),
    ].join('\n')
  } finally {
    for (const { client } of conns.values()) await client.end().catch(() => {})
    await pool.query(`drop schema if exists ${Object.keys(SCHEMAS).join(', ')} cascade`).catch(() => {})
  }
}
