/**
 * Reconciliation of one day: a synthetic statement of 100,000 lines against 100,000 Till records
 * (and the same at 10,000, to show that memory does not grow with the day), each run in a process of
 * its own (bench/reconciliation-worker.ts) for its peak RSS. The statement carries 0.1 % of each
 * kind it can: amounts changed, payments dropped, payments Till never made. Runs: the first (the
 * file fetched, parsed, matched), a re-run (the kept file parsed again, every item already there),
 * the same two with the V8 heap capped (what a run holds, whatever garbage the collector leaves lying),
 * and the ceiling beside them (the same lines written and the same pairs read, nothing classified).
 *
 * Knobs: BENCH_RECON_LINES (100,000).
 */
import { execFileSync } from 'node:child_process'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../src/config.js'
import { createDeps } from '../src/deps.js'
import { createMerchant } from '../src/services/merchants.js'
import { createProviderConfig } from '../src/services/provider-configs.js'
import { openBenchDb } from './db.js'
import { context, fmt, table } from './report.js'
import { mib } from './rss.js'

const LINES = Number(process.env.BENCH_RECON_LINES) || 100_000
const DAY = '2026-05-20'
const WORKER = fileURLToPath(new URL('./reconciliation-worker.ts', import.meta.url))
const ROOT = path.resolve(path.dirname(WORKER), '..')

interface Result { ms: number; rssBefore: number; rssPeak: number; maxRss: number; counts: Record<string, number> }

/** Each run of a day, in order: the first fetches; the capped ones show what a run holds, whatever the collector leaves lying. */
const RUNS: [string, 'run' | 'refetch' | 'sql', string[]][] = [
  ['first run: fetch, parse, match', 'run', []],
  ['re-run from the kept file', 'run', []],
  ['fetched again, V8 heap capped at 64 MiB', 'refetch', ['--max-old-space-size=64']],
  ['re-run, V8 heap capped at 64 MiB', 'run', ['--max-old-space-size=64']],
  ['ceiling: lines written, pairs read (SQL only)', 'sql', []],
]

const rid = (prefix: string, seed: string) => `'${prefix}_' || substr(md5(${seed}), 1, 24)`

/** `n` live records of the configuration paid through the day (Beijing time), with their sessions and attempts. */
async function addRecords(pool: import('pg').Pool, merchantId: string, configId: string, n: number) {
  await pool.query(
    `with g as (
       select g, ${rid('sess', `$2 || 's' || g`)} as sid, ${rid('att', `$2 || 'a' || g`)} as aid,
              ($3::date::timestamp at time zone 'Asia/Shanghai') + (g * interval '1 second' * (86000.0 / $4)) as paid_at
       from generate_series(1, $4::int) g
     ), s as (
       insert into sessions (id, merchant_id, mode, status, amount, currency, chosen_provider, provider_config_id, expires_at, created_at, updated_at)
       select sid, $1, 'live', 'paid', 1000 + g % 9000, 'CNY', 'wechat', $2, paid_at, paid_at, paid_at from g
     ), a as (
       insert into attempts (id, session_id, merchant_id, mode, provider, provider_config_id, channel, status, provider_ref, created_at, updated_at)
       select aid, sid, $1, 'live', 'wechat', $2, 'native', 'succeeded', 'wx' || g, paid_at, paid_at from g
     )
     insert into records (id, session_id, attempt_id, merchant_id, mode, provider, provider_config_id, provider_ref, amount, currency, status, paid_at, created_at)
     select ${rid('rec', `$2 || 'r' || g`)}, sid, aid, $1, 'live', 'wechat', $2, '42' || g, 1000 + g % 9000, 'CNY', 'paid', paid_at, paid_at from g`,
    [merchantId, configId, DAY, n],
  )
}

/**
 * The statement as the worker reads it: a line per record but every thousandth dropped, every
 * thousandth (another) with its amount changed, a payment Till never made for each dropped one, and
 * the summary of the lines.
 */
async function statementFile(pool: import('pg').Pool, configId: string, file: string) {
  const { rows } = await pool.query(
    `with l as (
       select row_number() over (order by paid_at) as n, attempt_id, provider_ref, amount, paid_at from records where provider_config_id = $1
     ), stated as (
       select n, attempt_id as ref, provider_ref as pref, case when n % 1000 = 1 then amount + 1 else amount end as amount, paid_at, 'Blue mug' as product
       from l where n % 1000 <> 2
       union all
       select n, 'att_unknown' || n, '43' || n, 5000, paid_at, 'Unknown' from l where n % 1000 = 2
     ), lines as (
       select n, amount, amount * 6 / 1000 as fee,
              format('payment,%s,%s,%s,CNY,succeeded,%s,%s,%s', ref, pref, amount, amount * 6 / 1000, to_char(paid_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), product) as text
       from stated
     )
     select string_agg(text, E'\\n' order by n) as body, count(*)::int as n, sum(amount)::bigint as amount,
            sum(fee)::bigint as fees, (select count(*)::int from l) as records
     from lines`,
    [configId],
  )
  const s = rows[0]
  writeFileSync(file, `${s.body}\ntotal,CNY,${s.n},${s.amount},0,0,${s.fees}\n`)
  return { lines: Number(s.n), records: Number(s.records) }
}

function work(url: string, configId: string, file: string, mode: 'run' | 'refetch' | 'sql', key: string, node: string[]): Result {
  const out = execFileSync(process.execPath, [...node, '--import', 'tsx', WORKER, url, configId, DAY, file, mode], {
    cwd: ROOT, env: { ...process.env, SECRETS_KEY: key }, encoding: 'utf8', maxBuffer: 1 << 20,
  })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Result
}

export async function benchReconciliation(): Promise<string> {
  const db = await openBenchDb()
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-bench-recon-'))
  const key = randomBytes(32).toString('base64')
  const silent = { info() {}, warn() {}, error() {} }
  // The day after, at 10:30 in Beijing: the statement is published.
  const deps = createDeps({ ...loadConfig({}), jobsEnabled: false }, db.database.db, Buffer.from(key, 'base64'), silent, () => new Date('2026-05-19T00:00:00.000Z'))
  const rows: string[][] = []
  let stored = ''
  try {
    const merchant = await createMerchant(deps, { name: 'Bench' })
    for (const size of [...new Set([Math.round(LINES / 10), LINES])]) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
      const cfg = await createProviderConfig(deps, merchant.id, {
        provider: 'wechat', label: `bench-${size}`, credentials: {
          mchId: '1230000109', appId: 'wxd678efh567hg6787', merchantSerialNo: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
          privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }), apiV3Key: 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6',
          platformPublicKeyId: 'PUB_KEY_ID_0114232134912410000000000000', platformPublicKey: publicKey.export({ type: 'spki', format: 'pem' }),
        },
      })
      await addRecords(db.database.pool, merchant.id, cfg.id, size)
      await db.database.pool.query('analyze sessions; analyze attempts; analyze records; analyze refunds')
      const file = path.join(dir, `statement-${size}.csv`)
      const { lines, records } = await statementFile(db.database.pool, cfg.id, file)
      console.log(`reconciliation: ${fmt(lines)} lines (${mib(statSync(file).size)}) against ${fmt(records)} records`)
      for (const [what, mode, node] of RUNS) {
        const r = work(db.url, cfg.id, file, mode, key, node)
        const found = mode === 'sql' ? `${fmt(r.counts.pairs)} pairs` : ['matched', 'missing_in_till', 'missing_at_provider', 'amount_differs'].map((c) => `${c} ${fmt(r.counts[c])}`).join(', ')
        console.log(`  ${what}: ${(r.ms / 1000).toFixed(2)} s, peak RSS ${mib(r.rssPeak)} (from ${mib(r.rssBefore)}), ${found}`)
        rows.push([fmt(lines), what, `${(r.ms / 1000).toFixed(2)} s`, fmt(lines / (r.ms / 1000)), mib(r.rssPeak), mib(r.rssPeak - r.rssBefore), mib(r.maxRss), found])
      }
    }
    // Live rows only: each run rewrote the lines and the re-fetch the files, leaving dead ones behind.
    await db.database.pool.query('vacuum full statement_files, statement_file_chunks, statement_lines, reconciliation_items')
    const { rows: size } = await db.database.pool.query(`select
      (select count(*) from statement_lines)::int as lines, pg_total_relation_size('statement_files')::float8 + pg_total_relation_size('statement_file_chunks')::float8 as files,
      pg_total_relation_size('statement_lines')::float8 as parsed, pg_total_relation_size('reconciliation_items')::float8 as items`)
    const z = size[0]
    const per = (bytes: number) => `${fmt(bytes / z.lines)} B`
    stored = `Kept per statement line (${fmt(z.lines)} lines of both days, live rows, indexes and TOAST included): the files ${per(z.files)}, the parsed lines ${per(z.parsed)}, the items ${per(z.items)}.`
    console.log(`  ${stored}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await db.close()
  }
  return [
    '## Reconciliation: a day\'s statement against Till\'s records',
    context([
      `${fmt(LINES)} records of one configuration paid through one day; the statement drops 0.1 % of them, changes the amount of 0.1 % and adds as many payments Till never made`,
      'each run in a process of its own (bench/reconciliation-worker.ts: Till\'s services, its pool and query timeout); peak RSS sampled every 5 ms, and the kernel\'s high-water mark',
    ]),
    '',
    table(['lines', 'run', 'time', 'lines/s', 'peak RSS', 'RSS growth', 'max RSS (kernel)', 'found'], rows),
    '',
    'The statement file is handed over and kept as a stream (chunks of at most 1 MiB, written as they arrive) and parsed back from the store as a stream; the lines are written 2,000 at a time and the pairs read through a cursor 2,000 at a time: what a run holds is one chunk and one batch, whatever the size of the day. Without a cap, V8 lets garbage collect late and RSS grows with the work done (the SQL-only ceiling grows as much); with the heap capped at 64 MiB the same run completes, which bounds what it holds.',
    '',
    stored,
  ].join('\n')
}
