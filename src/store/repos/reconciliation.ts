/**
 * Reconciliation's tables (docs/reconciliation.md): a statement per (configuration, day) with its
 * files and parsed lines, and the items of its last run. The day's pairs are made in SQL and read
 * through a cursor, so a day of 100,000 lines never sits in memory whole.
 */
import { and, asc, desc, eq, gt, inArray, isNull, lte, notInArray, or, sql, type SQL } from 'drizzle-orm'
import type { Difference, ItemCategory } from '../../domain/reconciliation.js'
import type { StatementLine } from '../../providers/statements.js'
import type { Executor, Tx } from '../db.js'
import { reconciliationItems as items, statementFileChunks, statementFiles, statementLines, statements } from '../schema.js'
import type { Scope } from './scope.js'

export type StatementRow = typeof statements.$inferSelect
export type ItemRow = typeof items.$inferSelect

/** Where a statement belongs: its merchant, mode, provider and configuration, and its day in the provider's zone. */
export interface StatementKey {
  merchantId: string
  mode: 'test' | 'live'
  provider: string
  providerConfigId: string
  day: string
  zone: string
}

/**
 * Takes the day's lease (making its row when there is none), or answers null when another run holds
 * it. Without `force` only a day that is due is taken: not reconciled yet, and its next try come.
 */
export async function claimStatement(ex: Executor, id: string, k: StatementKey, o: { now: Date; until: Date; token: string; force: boolean }): Promise<StatementRow | null> {
  const due = o.force ? sql`true` : sql`${statements.state} <> 'reconciled' and (${statements.nextTryAt} is null or ${statements.nextTryAt} <= ${o.now})`
  const [row] = await ex.insert(statements).values({
    id, ...k, state: 'waiting', leasedUntil: o.until, leaseToken: o.token, createdAt: o.now, updatedAt: o.now,
  }).onConflictDoUpdate({
    target: [statements.providerConfigId, statements.day],
    set: { leasedUntil: o.until, leaseToken: o.token },
    setWhere: sql`(${statements.leasedUntil} is null or ${statements.leasedUntil} <= ${o.now}) and ${due}`,
  }).returning()
  return row ?? null
}

export async function releaseStatement(ex: Executor, id: string, token: string) {
  await ex.update(statements).set({ leasedUntil: null, leaseToken: null }).where(and(eq(statements.id, id), eq(statements.leaseToken, token)))
}

/** A change by the run holding the lease; a run whose lease was taken over changes nothing. */
export async function updateStatement(ex: Executor, id: string, token: string, patch: Partial<StatementRow>): Promise<boolean> {
  const rows = await ex.update(statements).set(patch).where(and(eq(statements.id, id), eq(statements.leaseToken, token))).returning({ id: statements.id })
  return rows.length > 0
}

export async function getStatementUnscoped(ex: Executor, id: string): Promise<StatementRow | null> {
  const [r] = await ex.select().from(statements).where(eq(statements.id, id))
  return r ?? null
}

export async function getStatement(ex: Executor, scope: Scope, id: string): Promise<StatementRow | null> {
  const [r] = await ex.select().from(statements).where(and(eq(statements.id, id), eq(statements.merchantId, scope.merchantId), eq(statements.mode, scope.mode)))
  return r ?? null
}

/** The statements of these configurations on these days, for the daily job to see which are due. */
export async function statementsOn(ex: Executor, configIds: string[], days: string[]): Promise<StatementRow[]> {
  if (!configIds.length || !days.length) return []
  return ex.select().from(statements).where(and(inArray(statements.providerConfigId, configIds), inArray(statements.day, days)))
}

/** Reconciled days of a configuration among `days`. */
export async function reconciledDays(ex: Executor, configId: string, days: string[]): Promise<StatementRow[]> {
  if (!days.length) return []
  return ex.select().from(statements).where(and(eq(statements.providerConfigId, configId), inArray(statements.day, days), eq(statements.state, 'reconciled')))
}

/** Reconciled statements with an `expected` item whose grace is over: their next run names it. */
export async function statementsWithLapsedExpected(ex: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await ex.selectDistinct({ id: items.statementId }).from(items)
    .where(and(eq(items.category, 'expected'), lte(items.expectedUntil, now))).limit(limit)
  return rows.map((r) => r.id)
}

/** Forgets the day's files (before a fetch keeps new ones); their chunks go with them. */
export async function deleteFiles(tx: Tx, statementId: string) {
  await tx.delete(statementFiles).where(eq(statementFiles.statementId, statementId))
}

/** Starts keeping a file; its size and SHA-256 are known once its last chunk is written (`finishFile`). */
export async function startFile(tx: Tx, statementId: string, f: { name: string; type: string }, now: Date) {
  await tx.insert(statementFiles).values({ statementId, name: f.name, type: f.type, sha256: '', size: 0, createdAt: now })
}

export async function insertChunk(tx: Tx, statementId: string, name: string, seq: number, data: Buffer) {
  await tx.insert(statementFileChunks).values({ statementId, name, seq, data })
}

export async function finishFile(tx: Tx, statementId: string, name: string, f: { size: number; sha256: string }) {
  await tx.update(statementFiles).set(f).where(and(eq(statementFiles.statementId, statementId), eq(statementFiles.name, name)))
}

/** The kept files (without their bytes), in name order, with the SHA-256 each had when it was kept. */
export async function listFiles(ex: Executor, statementId: string) {
  return ex.select({ name: statementFiles.name, type: statementFiles.type, size: statementFiles.size, sha256: statementFiles.sha256 }).from(statementFiles)
    .where(eq(statementFiles.statementId, statementId)).orderBy(asc(statementFiles.name))
}

/** A kept file's bytes, a chunk (at most 1 MiB) at a time, in order. */
export async function* fileChunks(ex: Executor, statementId: string, name: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    // Text mode (hex), parsed into a buffer of its own. A binary-mode value is a view into the
    // connection's receive buffer, which pg-protocol may reuse for the answer's next packets while
    // the query has not resolved yet: a large value read that way came back damaged under load.
    const [row] = await ex.select({ data: statementFileChunks.data }).from(statementFileChunks)
      .where(and(eq(statementFileChunks.statementId, statementId), eq(statementFileChunks.name, name), eq(statementFileChunks.seq, seq)))
    if (!row) return
    yield row.data
  }
}

export async function deleteLines(tx: Tx, statementId: string) {
  await tx.delete(statementLines).where(eq(statementLines.statementId, statementId))
}

/** One batch of parsed lines, as one parameter (a JSON array): any batch size fits PostgreSQL's parameter limit. */
export async function insertLines(tx: Tx, statementId: string, configId: string, lines: StatementLine[]) {
  if (!lines.length) return
  const rows = lines.map((l) => ({
    file: l.source.file, line_no: l.source.line, kind: l.kind, till_ref: l.tillRef, provider_ref: l.providerRef, payment_till_ref: l.paymentTillRef ?? null,
    payment_provider_ref: l.paymentProviderRef ?? null,
    amount: l.amount, currency: l.currency, status: l.status, fee: l.fee, at: l.at.toISOString(), fields: l.source.fields,
  }))
  await tx.execute(sql`
    insert into statement_lines (statement_id, file, line_no, provider_config_id, kind, till_ref, provider_ref, payment_till_ref, payment_provider_ref, amount, currency, status, fee, at, fields)
    select ${statementId}, x.file, x.line_no, ${configId}, x.kind, x.till_ref, x.provider_ref, x.payment_till_ref, x.payment_provider_ref, x.amount, x.currency, x.status, x.fee, x.at, x.fields
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(file text, line_no int, kind text, till_ref text, provider_ref text, payment_till_ref text, payment_provider_ref text,
      amount bigint, currency text, status text, fee bigint, at timestamptz, fields jsonb)`)
}

/** The day's bounds in its zone, as PostgreSQL's time zone data has them. */
export async function dayBounds(ex: Executor, day: string, zone: string): Promise<{ start: Date; end: Date }> {
  const { rows } = await ex.execute(sql`
    select (extract(epoch from (${day}::date::timestamp at time zone ${zone})) * 1000)::float8 as s,
           (extract(epoch from ((${day}::date + 1)::timestamp at time zone ${zone})) * 1000)::float8 as e`)
  const r = rows[0] as { s: number; e: number }
  return { start: new Date(Number(r.s)), end: new Date(Number(r.e)) }
}

export interface PairScope {
  statementId: string
  merchantId: string
  mode: string
  configId: string
  start: Date
  end: Date
  /** The source's refund lines are per payment (StatementSource.refundLines): Till's refunds belong to their record's day. */
  refundsPerPayment: boolean
}

/** One row of the day's pairs: a line of the statement, Till's side, or both. */
export interface PairRow {
  /** `line`: the statement's line (with Till's side when it has one); `till`: a Till payment or refund of the day (with its line on another day's statement, if any); `elsewhere`: a line whose Till side belongs to another day. */
  source: 'line' | 'till' | 'elsewhere'
  kind: 'payment' | 'refund'
  duplicate: boolean
  l_statement: string | null
  l_day: string | null
  l_file: string | null
  l_line: number | null
  l_till_ref: string | null
  l_provider_ref: string | null
  l_amount: number | null
  l_currency: string | null
  l_status: 'succeeded' | 'pending' | 'failed' | null
  l_fee: number | null
  l_at: number | null
  t_id: string | null
  t_ref: string | null
  t_amount: number | null
  t_currency: string | null
  t_status: 'succeeded' | 'pending' | 'failed' | null
  t_at: number | null
  t_charged: { amount: number; currency: string } | null
  t_day: string | null
  attempt_status: 'processing' | 'succeeded' | 'failed' | 'closed' | null
  /** A per-payment refund line's record: its refunds' ids (oldest first) and sums by status. */
  g_ids: string[] | null
  g_currency: string | null
  g_succeeded: number | null
  g_pending: number | null
  g_failed: number | null
  g_last_at: number | null
  g_pending_at: number | null
}

const CURSOR = 'till_reconciliation_pairs'
const ms = (col: SQL) => sql`(extract(epoch from ${col}) * 1000)::float8`

/**
 * Opens a cursor over the day's pairs, in the caller's transaction. Payments pair by the attempt id
 * the provider echoes (or, on a line that echoes none, by the provider's id kept on the record), refunds by Till's refund id (or, for one started outside Till, the
 * provider's refund id); every read is scoped by merchant, mode and configuration. A pair belongs to
 * the day of Till's side, so a line that came a day late pairs with the day it belongs to.
 */
export async function openPairs(tx: Tx, p: PairScope, zone: string) {
  await tx.execute(sql`
    declare ${sql.raw(CURSOR)} no scroll cursor for
    with l as (
      select sl.file, sl.line_no, sl.kind, sl.till_ref, sl.provider_ref, sl.amount, sl.currency, sl.status, sl.fee, sl.at,
        coalesce(r.id, rp.id, f.id, g.ids[1]) as t_id,
        coalesce(r.attempt_id, rp.attempt_id, f.id) as t_ref,
        coalesce(r.amount, rp.amount, f.amount) as t_amount,
        coalesce(r.currency, rp.currency, f.currency) as t_currency,
        case when coalesce(r.id, rp.id) is not null then 'succeeded' else f.status end as t_status,
        coalesce(r.paid_at, rp.paid_at, f.created_at) as t_at,
        coalesce(r.provider_data, rp.provider_data)->'charged' as t_charged,
        a.status as attempt_status,
        g.ids as g_ids, g.currency as g_currency, g.succeeded as g_succeeded, g.pending as g_pending, g.failed as g_failed,
        g.last_at as g_last_at, g.pending_at as g_pending_at
      from statement_lines sl
      left join records r on sl.kind = 'payment' and r.attempt_id = sl.till_ref
        and r.merchant_id = ${p.merchantId} and r.mode = ${p.mode} and r.provider_config_id = ${p.configId}
      -- A line that echoes none of Till's ids (Creem's) names the payment by the provider's id, which
      -- Till keeps on the record; looked for around the day only, so the join stays a hash of a few days.
      left join records rp on sl.kind = 'payment' and sl.till_ref is null and rp.provider_ref = sl.provider_ref
        and rp.merchant_id = ${p.merchantId} and rp.mode = ${p.mode} and rp.provider_config_id = ${p.configId}
        and rp.paid_at >= ${p.start}::timestamptz - interval '1 day' and rp.paid_at < ${p.end}::timestamptz + interval '1 day'
      left join lateral (
        select f.id, f.amount, f.status, f.created_at, fr.currency from refunds f join records fr on fr.id = f.record_id
        where sl.kind = 'refund' and f.merchant_id = ${p.merchantId} and f.mode = ${p.mode} and fr.provider_config_id = ${p.configId}
          and (f.id = sl.till_ref or (f.initiated_by = 'provider' and f.provider_ref = sl.provider_ref))
        order by f.id = sl.till_ref desc
        limit 1
      ) f on true
      -- A per-payment refund line (no refund named, only its payment) pairs with all that record's
      -- refunds as one; the record looked for around the day, as a payment line's is.
      left join lateral (
        select gr.currency, array_agg(gf.id order by gf.created_at, gf.id) as ids,
          coalesce(sum(gf.amount) filter (where gf.status = 'succeeded'), 0)::bigint as succeeded,
          coalesce(sum(gf.amount) filter (where gf.status = 'pending'), 0)::bigint as pending,
          coalesce(sum(gf.amount) filter (where gf.status = 'failed'), 0)::bigint as failed,
          max(gf.created_at) as last_at, max(gf.created_at) filter (where gf.status = 'pending') as pending_at
        from records gr join refunds gf on gf.record_id = gr.id
        where ${p.refundsPerPayment} and sl.kind = 'refund' and sl.till_ref is null and sl.provider_ref is null and gr.provider_ref = sl.payment_provider_ref
          and gr.merchant_id = ${p.merchantId} and gr.mode = ${p.mode} and gr.provider_config_id = ${p.configId}
          and gr.paid_at >= ${p.start}::timestamptz - interval '1 day' and gr.paid_at < ${p.end}::timestamptz + interval '1 day'
        group by gr.id, gr.currency
        limit 1
      ) g on true
      left join attempts a on sl.kind = 'payment' and r.id is null and rp.id is null and a.id = sl.till_ref
        and a.merchant_id = ${p.merchantId} and a.mode = ${p.mode} and a.provider_config_id = ${p.configId}
      where sl.statement_id = ${p.statementId}
    ),
    ranked as (
      select l.*, row_number() over (partition by l.t_id order by l.file, l.line_no) as nth from l
    ),
    till_day as (
      select 'payment'::text as kind, r.id as t_id, r.attempt_id as t_ref, r.amount as t_amount, r.currency as t_currency,
        'succeeded'::text as t_status, r.paid_at as t_at, r.provider_data->'charged' as t_charged
      from records r
      where r.provider_config_id = ${p.configId} and r.merchant_id = ${p.merchantId} and r.mode = ${p.mode}
        and r.paid_at >= ${p.start} and r.paid_at < ${p.end}
      union all
      select 'refund', f.id, f.id, f.amount, r.currency, f.status, f.created_at, null
      from refunds f join records r on r.id = f.record_id
      where f.merchant_id = ${p.merchantId} and f.mode = ${p.mode} and r.provider_config_id = ${p.configId}
        and ${refundOfDay(p)}
        -- Covered by its payment's refund line, on whichever day's statement: not an orphan anywhere.
        and not (${p.refundsPerPayment} and exists (select 1 from statement_lines c where c.provider_config_id = ${p.configId} and c.kind = 'refund'
          and c.payment_provider_ref = r.provider_ref and c.till_ref is null and c.provider_ref is null))
    )
    select
      case when x.t_id is null or x.nth > 1 or x.g_ids is not null or (x.t_at >= ${p.start} and x.t_at < ${p.end}) then 'line' else 'elsewhere' end as source,
      x.kind, (x.t_id is not null and x.nth > 1) as duplicate,
      ${p.statementId}::text as l_statement, null::text as l_day, x.file as l_file, x.line_no as l_line, x.till_ref as l_till_ref, x.provider_ref as l_provider_ref,
      x.amount as l_amount, x.currency as l_currency, x.status as l_status, x.fee as l_fee, ${ms(sql`x.at`)} as l_at,
      x.t_id, x.t_ref, x.t_amount, x.t_currency, x.t_status, ${ms(sql`x.t_at`)} as t_at, x.t_charged,
      to_char(x.t_at at time zone ${zone}, 'YYYY-MM-DD') as t_day, x.attempt_status,
      x.g_ids, x.g_currency, x.g_succeeded, x.g_pending, x.g_failed, ${ms(sql`x.g_last_at`)} as g_last_at, ${ms(sql`x.g_pending_at`)} as g_pending_at
    from ranked x
    union all
    select 'till', t.kind, false,
      o.statement_id, o.day::text, o.file, o.line_no, o.till_ref, o.provider_ref, o.amount, o.currency, o.status, o.fee, ${ms(sql`o.at`)},
      t.t_id, t.t_ref, t.t_amount, t.t_currency, t.t_status, ${ms(sql`t.t_at`)}, t.t_charged, null, null,
      null, null, null, null, null, null, null
    from till_day t
    left join lateral (
      select sl.*, s.day from statement_lines sl join statements s on s.id = sl.statement_id
      where sl.provider_config_id = ${p.configId} and sl.kind = t.kind and sl.till_ref = t.t_ref and sl.statement_id <> ${p.statementId}
      order by s.day, sl.file, sl.line_no
      limit 1
    ) o on true
    where not exists (select 1 from l where l.t_id = t.t_id)`)
}

/** A Till refund (`f`, of record `r`) of the day: made within it, or, when the source states refunds per payment, its record paid within it. */
const refundOfDay = (p: PairScope) => p.refundsPerPayment
  ? sql`r.paid_at >= ${p.start} and r.paid_at < ${p.end}`
  : sql`f.created_at >= ${p.start} and f.created_at < ${p.end}`

export async function fetchPairs(tx: Tx, n: number): Promise<PairRow[]> {
  const { rows } = await tx.execute(sql`fetch ${sql.raw(String(n))} from ${sql.raw(CURSOR)}`)
  return rows as unknown as PairRow[]
}

export async function closePairs(tx: Tx) {
  await tx.execute(sql`close ${sql.raw(CURSOR)}`)
}

/** Till's side of the day per currency: its payments, and its refunds that were not refused. */
export async function tillTotals(tx: Tx, p: PairScope) {
  const { rows } = await tx.execute(sql`
    select r.currency, 'payment' as kind, count(*)::int as n, coalesce(sum(r.amount), 0)::float8 as amount from records r
    where r.provider_config_id = ${p.configId} and r.merchant_id = ${p.merchantId} and r.mode = ${p.mode} and r.paid_at >= ${p.start} and r.paid_at < ${p.end}
    group by r.currency
    union all
    select r.currency, 'refund', count(*)::int, coalesce(sum(f.amount), 0)::float8 from refunds f join records r on r.id = f.record_id
    where f.merchant_id = ${p.merchantId} and f.mode = ${p.mode} and r.provider_config_id = ${p.configId} and ${refundOfDay(p)}
      and f.status <> 'failed'
    group by r.currency`)
  return rows as { currency: string; kind: 'payment' | 'refund'; n: number; amount: number }[]
}

export interface ItemInput {
  id: string
  key: string
  kind: 'payment' | 'refund'
  category: ItemCategory
  till: object | null
  line: object | null
  differences: Difference[]
  fingerprint: string
  expected_until: string | null
}

/** The keys of the items this run made, in a table of the transaction's own (so the items it did not make again can go). */
export async function startRun(tx: Tx) {
  await tx.execute(sql`create temp table till_reconciliation_run (key text primary key) on commit drop`)
}

/**
 * Writes one batch of the run's items. An item seen before keeps its id, and its acknowledgement
 * while its fingerprint is the same; one unchanged is not written at all (a re-run of a day writes
 * only what changed). Answers how many of the batch are mismatches that are new or changed.
 */
export async function upsertItems(tx: Tx, s: { statementId: string; merchantId: string; mode: string; now: Date }, batch: ItemInput[]): Promise<number> {
  if (!batch.length) return 0
  const kept = (col: string) => sql.raw(`case when reconciliation_items.fingerprint = excluded.fingerprint then reconciliation_items.${col} end`)
  const { rows } = await tx.execute(sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as x(id text, key text, kind text, category text, till jsonb, line jsonb,
        differences jsonb, fingerprint text, expected_until timestamptz)
    ),
    old as (
      select i.key, i.fingerprint from reconciliation_items i where i.statement_id = ${s.statementId} and i.key in (select key from input)
    ),
    seen as (
      insert into till_reconciliation_run (key) select key from input
    ),
    up as (
      insert into reconciliation_items (id, statement_id, merchant_id, mode, key, kind, category, till, line, differences, fingerprint, expected_until, created_at, updated_at)
      select x.id, ${s.statementId}, ${s.merchantId}, ${s.mode}, x.key, x.kind, x.category, x.till, x.line, x.differences, x.fingerprint, x.expected_until, ${s.now}, ${s.now}
      from input x
      on conflict (statement_id, key) do update set
        kind = excluded.kind, category = excluded.category, till = excluded.till, line = excluded.line, differences = excluded.differences,
        expected_until = excluded.expected_until,
        acknowledged_at = ${kept('acknowledged_at')}, acknowledged_by = ${kept('acknowledged_by')}, acknowledgement_note = ${kept('acknowledgement_note')},
        updated_at = excluded.updated_at,
        fingerprint = excluded.fingerprint
      where (reconciliation_items.kind, reconciliation_items.category, reconciliation_items.till, reconciliation_items.line,
             reconciliation_items.differences, reconciliation_items.expected_until, reconciliation_items.fingerprint)
        is distinct from (excluded.kind, excluded.category, excluded.till, excluded.line, excluded.differences, excluded.expected_until, excluded.fingerprint)
      returning key, category, fingerprint
    )
    select count(*)::int as n from up left join old using (key)
    where up.category not in ('matched', 'expected') and (old.key is null or old.fingerprint <> up.fingerprint)`)
  return Number((rows[0] as { n: number }).n)
}

/** Items of an earlier run that this run did not make again (their counterpart changed, or they went away). */
export async function deleteStaleItems(tx: Tx, statementId: string) {
  await tx.execute(sql`analyze till_reconciliation_run`)
  await tx.execute(sql`
    delete from reconciliation_items i where i.statement_id = ${statementId}
      and not exists (select 1 from till_reconciliation_run r where r.key = i.key)`)
}

/** Open (unacknowledged) mismatches per statement. */
export async function openMismatchesOf(ex: Executor, statementIds: string[]): Promise<Map<string, number>> {
  if (!statementIds.length) return new Map()
  const rows = await ex.select({ id: items.statementId, n: sql<number>`count(*)::int` }).from(items)
    .where(and(inArray(items.statementId, statementIds), isNull(items.acknowledgedAt), notInArray(items.category, ['matched', 'expected'])))
    .groupBy(items.statementId)
  return new Map(rows.map((r) => [r.id, Number(r.n)]))
}

export interface StatementFilter {
  providerConfigId?: string
  day?: string
}

/** The operator's filter (admin API): any merchant's rows, or one merchant's in both modes. */
export type OperatorFilter<F> = F & { merchantId?: string }

/** Newest day first; `after` is the last statement of the previous page. One more than asked tells whether there is more. */
async function statementPage(ex: Executor, where: SQL | undefined, f: StatementFilter, o: { limit: number; after?: StatementRow }) {
  const page = o.after ? or(sql`${statements.day} < ${o.after.day}`, and(eq(statements.day, o.after.day), sql`${statements.id} < ${o.after.id}`)) : undefined
  const rows = await ex.select().from(statements).where(and(
    where,
    f.providerConfigId ? eq(statements.providerConfigId, f.providerConfigId) : undefined,
    f.day ? eq(statements.day, f.day) : undefined,
    page,
  )).orderBy(desc(statements.day), desc(statements.id)).limit(o.limit + 1)
  return { rows: rows.slice(0, o.limit), hasMore: rows.length > o.limit }
}

/** The merchant's statements in one mode. */
export const listStatements = (ex: Executor, scope: Scope, f: StatementFilter, o: { limit: number; after?: StatementRow }) =>
  statementPage(ex, and(eq(statements.merchantId, scope.merchantId), eq(statements.mode, scope.mode)), f, o)

export const listStatementsUnscoped = (ex: Executor, f: OperatorFilter<StatementFilter>, o: { limit: number; after?: StatementRow }) =>
  statementPage(ex, f.merchantId ? eq(statements.merchantId, f.merchantId) : undefined, f, o)

export interface ItemFilter {
  statementId?: string
  providerConfigId?: string
  categories?: ItemCategory[]
  /** Only items not acknowledged yet. */
  open?: boolean
}

export type ItemWithDay = ItemRow & { day: string; provider: string; providerConfigId: string }

/** Items by day (newest first), then key; `after` is the last item of the previous page. */
async function itemPage(ex: Executor, where: SQL | undefined, f: ItemFilter, o: { limit: number; after?: ItemWithDay }): Promise<{ rows: ItemWithDay[]; hasMore: boolean }> {
  const page = o.after
    ? or(sql`${statements.day} < ${o.after.day}`, and(eq(statements.day, o.after.day), gt(items.key, o.after.key)))
    : undefined
  const rows = await ex.select({ item: items, day: statements.day, provider: statements.provider, providerConfigId: statements.providerConfigId })
    .from(items).innerJoin(statements, eq(statements.id, items.statementId))
    .where(and(
      where,
      f.statementId ? eq(items.statementId, f.statementId) : undefined,
      f.providerConfigId ? eq(statements.providerConfigId, f.providerConfigId) : undefined,
      f.categories ? inArray(items.category, f.categories) : undefined,
      f.open ? isNull(items.acknowledgedAt) : undefined,
      page,
    ))
    .orderBy(desc(statements.day), asc(items.key)).limit(o.limit + 1)
  const all = rows.map((r) => ({ ...r.item, day: r.day, provider: r.provider, providerConfigId: r.providerConfigId }))
  return { rows: all.slice(0, o.limit), hasMore: all.length > o.limit }
}

/** The merchant's items in one mode. */
export const listItems = (ex: Executor, scope: Scope, f: ItemFilter, o: { limit: number; after?: ItemWithDay }) =>
  itemPage(ex, and(eq(items.merchantId, scope.merchantId), eq(items.mode, scope.mode)), f, o)

export const listItemsUnscoped = (ex: Executor, f: OperatorFilter<ItemFilter>, o: { limit: number; after?: ItemWithDay }) =>
  itemPage(ex, f.merchantId ? eq(items.merchantId, f.merchantId) : undefined, f, o)

const itemWhere = async (ex: Executor, where: SQL | undefined): Promise<ItemWithDay | null> => {
  const [r] = await ex.select({ item: items, day: statements.day, provider: statements.provider, providerConfigId: statements.providerConfigId })
    .from(items).innerJoin(statements, eq(statements.id, items.statementId)).where(where)
  return r ? { ...r.item, day: r.day, provider: r.provider, providerConfigId: r.providerConfigId } : null
}

/** The merchant's item. */
export const getItem = (ex: Executor, scope: Scope, id: string) => itemWhere(ex, and(eq(items.id, id), eq(items.merchantId, scope.merchantId), eq(items.mode, scope.mode)))

/** An item by id alone: the operator's list (admin API), which may name no merchant, checks it against its filter. */
export const getItemUnscoped = (ex: Executor, id: string) => itemWhere(ex, eq(items.id, id))

/** The provider's own fields of the lines these items name (file, line), for showing a mismatch's source. */
export async function lineFields(ex: Executor, refs: { statementId: string; file: string; line: number }[]): Promise<Map<string, Record<string, string>>> {
  if (!refs.length) return new Map()
  const { rows } = await ex.execute(sql`
    select sl.statement_id, sl.file, sl.line_no, sl.fields from statement_lines sl
    join jsonb_to_recordset(${JSON.stringify(refs)}::jsonb) as x("statementId" text, file text, line int)
      on sl.statement_id = x."statementId" and sl.file = x.file and sl.line_no = x.line`)
  return new Map((rows as { statement_id: string; file: string; line_no: number; fields: Record<string, string> }[])
    .map((r) => [`${r.statement_id}|${r.file}|${r.line_no}`, r.fields]))
}

/** Acknowledges a mismatch of a statement; null when there is none such not acknowledged yet. */
export async function acknowledgeItem(tx: Tx, scope: Scope, id: string, statementId: string, by: string, note: string, now: Date): Promise<ItemRow | null> {
  const [r] = await tx.update(items).set({ acknowledgedAt: now, acknowledgedBy: by, acknowledgementNote: note })
    .where(and(eq(items.id, id), eq(items.statementId, statementId), eq(items.merchantId, scope.merchantId), eq(items.mode, scope.mode), isNull(items.acknowledgedAt), notInArray(items.category, ['matched', 'expected'])))
    .returning()
  return r ?? null
}

/** Every item of a statement, a page at a time in key order: the CSV export streams them. */
export async function itemsAfter(ex: Executor, statementId: string, afterKey: string | null, limit: number): Promise<ItemRow[]> {
  return ex.select().from(items).where(and(eq(items.statementId, statementId), afterKey === null ? undefined : gt(items.key, afterKey))).orderBy(asc(items.key)).limit(limit)
}
