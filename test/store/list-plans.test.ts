/**
 * The merchant's lists stay cheap at a million rows: every page query (sessions, records, refunds,
 * each filter, deep cursors) is run with EXPLAIN ANALYZE on a million generated sessions, and must
 * read a few index entries per row it returns, never scan or sort the merchant's whole history.
 * LIST_PLAN_ROWS sets another size (the default is the one the issue names).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Cursor } from '../../src/store/repos/page.js'
import { recordPageQuery } from '../../src/store/repos/records.js'
import { refundPageQuery } from '../../src/store/repos/refunds.js'
import type { Scope } from '../../src/store/repos/scope.js'
import { sessionPageQuery } from '../../src/store/repos/sessions.js'
import { freshPool } from '../helpers/db.js'

const ROWS = Number(process.env.LIST_PLAN_ROWS ?? 1_000_000)
const LIMIT = 10

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  'Rows Removed by Filter'?: number
  'Shared Hit Blocks': number
  'Shared Read Blocks': number
  Plans?: PlanNode[]
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)]

test(`list queries read a page's worth of index at ${ROWS.toLocaleString('en')} sessions`, { timeout: 15 * 60_000 }, async (t) => {
  // Straight to PostgreSQL: the load sets maintenance_work_mem for its session, which a pooler would not keep.
  // No query timeout: loading a million rows takes longer than any query Till makes.
  const database = await freshPool(t, 1, { direct: true, queryTimeoutMs: 0 })
  const pool = database.pool
  const now = new Date('2026-11-21T12:00:00.000Z')
  // One big merchant (test mode: 80%, live 10%) and another (10%); one session per 10 ms, newest now.
  await pool.query(`insert into merchants (id, name) values ('mer_big', 'Big'), ('mer_other', 'Other')`)
  // Loading first and indexing after is several times faster than a million index inserts; the
  // indexes come back exactly as the migrations made them.
  const { rows: indexes } = await pool.query<{ indexname: string; indexdef: string }>(`
    select i.indexname, i.indexdef from pg_indexes i
    where i.tablename in ('sessions', 'records', 'refunds')
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`)
  for (const i of indexes) await pool.query(`drop index "${i.indexname}"`)
  await pool.query(`
    insert into sessions (id, merchant_id, mode, status, amount, currency, metadata, expires_at, created_at, updated_at)
    select 'sess_' || lpad(i::text, 24, '0'),
           case when i % 10 = 9 then 'mer_other' else 'mer_big' end,
           case when i % 10 = 8 then 'live' else 'test' end,
           case when i / 10 % 20 < 12 then 'paid' when i / 10 % 20 < 13 then 'pending' when i / 10 % 20 < 17 then 'expired'
                when i / 10 % 20 < 19 then 'canceled' else 'failed' end,
           1000, 'CNY',
           jsonb_build_object('order', 'o-' || i, 'shop', case when i % 2 = 0 then 'north' else 'south' end),
           $1::timestamptz - (($2 - i) * interval '10 ms') + interval '1 hour',
           $1::timestamptz - (($2 - i) * interval '10 ms'),
           $1::timestamptz - (($2 - i) * interval '10 ms')
    from generate_series(1, $2) i`, [now, ROWS])
  await pool.query(`
    insert into records (id, session_id, merchant_id, mode, provider, provider_ref, amount, refunded_amount, currency, status, paid_at, created_at)
    select 'rec_' || substr(s.id, 6), s.id, s.merchant_id, s.mode, 'mock', 'mock_' || s.id, 1000,
           case when right(s.id, 2)::int % 10 = 0 then 1000 when right(s.id, 2)::int % 10 = 1 then 300 else 0 end,
           'CNY',
           case when right(s.id, 2)::int % 10 = 0 then 'refunded' when right(s.id, 2)::int % 10 = 1 then 'partially_refunded' else 'paid' end,
           s.created_at, s.created_at
    from sessions s where s.status = 'paid'`)
  await pool.query(`
    insert into refunds (id, record_id, merchant_id, mode, amount, status, created_at, updated_at)
    select 'ref_' || substr(r.id, 5), r.id, r.merchant_id, r.mode, r.refunded_amount, 'succeeded', r.created_at + interval '1 s', r.created_at + interval '1 s'
    from records r where r.refunded_amount > 0`)
  await pool.query('set maintenance_work_mem = \'256MB\'')
  for (const i of indexes) await pool.query(i.indexdef)
  await pool.query('vacuum analyze sessions, records, refunds')

  const big: Scope = { merchantId: 'mer_big', mode: 'test' }
  const id = (n: number) => lpad(n)
  // A cursor deep in the list: half-way back.
  const mid = Math.floor(ROWS / 2) - (Math.floor(ROWS / 2) % 20)
  const midCursor: Cursor = { id: `sess_${id(mid)}`, createdAt: new Date(now.getTime() - (ROWS - mid) * 10) }
  const recCursor: Cursor = { id: `rec_${id(mid)}`, createdAt: midCursor.createdAt }
  const refCursor: Cursor = { id: `ref_${id(mid)}`, createdAt: new Date(midCursor.createdAt.getTime() + 1000) }
  const someRecord = `rec_${id(mid - 20 * 5)}`

  const ex = database.db
  const cases: [string, { toSQL(): { sql: string; params: unknown[] } }][] = [
    ['sessions', sessionPageQuery(ex, big, {}, now, undefined, LIMIT)],
    ['sessions, deep cursor', sessionPageQuery(ex, big, {}, now, midCursor, LIMIT)],
    ['sessions status=paid', sessionPageQuery(ex, big, { status: 'paid' }, now, midCursor, LIMIT)],
    ['sessions status=failed', sessionPageQuery(ex, big, { status: 'failed' }, now, undefined, LIMIT)],
    ['sessions status=pending', sessionPageQuery(ex, big, { status: 'pending' }, now, undefined, LIMIT)],
    ['sessions status=expired', sessionPageQuery(ex, big, { status: 'expired' }, now, midCursor, LIMIT)],
    ['sessions created range', sessionPageQuery(ex, big, { createdGte: new Date(now.getTime() - ROWS * 5), createdLt: new Date(now.getTime() - ROWS * 2) }, now, undefined, LIMIT)],
    ['sessions metadata pair', sessionPageQuery(ex, big, { metadata: { order: `o-${mid - 20}` } }, now, undefined, LIMIT)],
    ['sessions metadata value', sessionPageQuery(ex, big, { metadataValue: `o-${mid - 40}` }, now, undefined, LIMIT)],
    ['sessions metadata common pair', sessionPageQuery(ex, big, { metadata: { shop: 'north' } }, now, midCursor, LIMIT)],
    ['sessions by id', sessionPageQuery(ex, big, { id: `sess_${id(mid)}` }, now, undefined, LIMIT)],
    ['records', recordPageQuery(ex, big, {}, recCursor, LIMIT)],
    ['records status=refunded', recordPageQuery(ex, big, { status: 'refunded' }, recCursor, LIMIT)],
    ['records session_id', recordPageQuery(ex, big, { sessionId: `sess_${id(mid)}` }, undefined, LIMIT)],
    ['refunds', refundPageQuery(ex, big, {}, refCursor, LIMIT)],
    ['refunds record_id', refundPageQuery(ex, big, { recordId: someRecord }, undefined, LIMIT)],
  ]
  for (const [name, q] of cases) {
    const { sql, params } = q.toSQL()
    const { rows } = await pool.query(`explain (analyze, buffers, format json) ${sql}`, params)
    const plan = nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode)
    const shape = plan.map((n) => `${n['Node Type']}${n['Index Name'] ? ` on ${n['Index Name']}` : ''} (${n['Actual Rows']} rows${n['Rows Removed by Filter'] ? `, ${n['Rows Removed by Filter']} filtered` : ''})`).join(' > ')
    const top = plan[0]
    const blocks = top['Shared Hit Blocks'] + top['Shared Read Blocks']
    const touched = plan.filter((n) => /Scan/.test(n['Node Type'])).reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'] + (n['Rows Removed by Filter'] ?? 0), 0)
    t.diagnostic(`${name}: ${blocks} blocks, ${touched} rows touched: ${shape}`)
    assert.ok(plan.every((n) => n['Node Type'] !== 'Seq Scan'), `${name} scans a table: ${shape}`)
    // A page of 11 rows (up to three index ranges of 11 for a merged status) with a little slack.
    assert.ok(touched <= 200, `${name} touches ${touched} rows: ${shape}`)
    assert.ok(blocks <= 400, `${name} reads ${blocks} blocks: ${shape}`)
  }
})

function lpad(n: number) {
  return String(n).padStart(24, '0')
}
