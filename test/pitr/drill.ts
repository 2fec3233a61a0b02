/**
 * The point-in-time recovery drill (scripts/pitr.sh; CI=true, or TEST_PITR=1), the recipe of
 * docs/operate.md "Backups and point-in-time recovery" run for real: PostgreSQL 15 archiving its WAL
 * into an encrypted pgBackRest repository, Till under a merchant's mixed load (checkouts, payments,
 * partial refunds, webhooks to a local endpoint), a full backup, more load, a moment T taken just
 * after an acknowledged write, more load, then the primary lost, a restore to T into a fresh data
 * directory and Till started on it. Judged through the API: every write acknowledged before T is
 * there with its money state and its events, none started after T is; what the outbox delivers
 * again is counted. Prints the recovery time (RTO) and the data's age at T (RPO).
 * Run as a test file: `npx tsx --test test/pitr/drill.ts` (not *.test.ts: the normal suite leaves it out).
 */
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { after, test } from 'node:test'
import { Load, type Answer } from '../failover/load.js'
import { startWebhookSink, type WebhookSink } from '../failover/sink.js'
import { api, demoKey, startTill, stopTill, type Till } from '../helpers/process.js'
import { until } from '../helpers/wait.js'

const DIR = path.resolve(process.env.PITR_DIR ?? '.test-data/pitr')
const BIN = '/usr/lib/postgresql/15/bin'
const PORT = 5434
const CONF = path.join(DIR, 'pgbackrest.conf')
const SECRETS_KEY = 'cd'.repeat(32)
const root = process.getuid?.() === 0

/** As the postgres user when we are root: PostgreSQL refuses root, and pgBackRest's files are its. */
function asPg(cmd: string, args: string[]): string {
  const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}
const backrest = (...args: string[]) => asPg('pgbackrest', [`--config=${CONF}`, '--stanza=till', ...args])
/** A backup, without blocking this process: the load it runs under is sent from here. */
const backupAsync = (type: string) => promisify(execFile)(root ? 'runuser' : 'pgbackrest',
  [...(root ? ['-u', 'postgres', '--', 'pgbackrest'] : []), `--config=${CONF}`, '--stanza=till', `--type=${type}`, 'backup'])
const pgData = (name: string) => path.join(DIR, name)
const url = `postgresql://postgres@localhost/till?host=${encodeURIComponent(DIR)}&port=${PORT}`

function startPostgres(data: string) {
  asPg(`${BIN}/pg_ctl`, ['start', '-D', data, '-w', '-t', '120', '-l', path.join(DIR, `${path.basename(data)}.log`),
    '-o', `-c listen_addresses='' -k ${DIR} -p ${PORT}`])
}
const stopPostgres = (data: string, mode = 'fast') => {
  try {
    asPg(`${BIN}/pg_ctl`, ['stop', '-D', data, '-m', mode, '-w'])
  } catch {}
}

function setUp() {
  stopPostgres(pgData('pg'), 'immediate')
  stopPostgres(pgData('pg-restored'), 'immediate')
  rmSync(DIR, { recursive: true, force: true })
  for (const d of ['', 'repo', 'log', 'lock', 'spool']) mkdirSync(path.join(DIR, d), { recursive: true })
  // Repository encryption: the key lives in the configuration here; in production, in a secret store.
  writeFileSync(CONF, `[global]
repo1-path=${DIR}/repo
repo1-cipher-type=aes-256-cbc
repo1-cipher-pass=${'pitr-drill-'.repeat(4)}
repo1-retention-full=2
start-fast=y
log-path=${DIR}/log
lock-path=${DIR}/lock
spool-path=${DIR}/spool
log-level-console=warn
log-level-file=info

[till]
pg1-path=${DIR}/pg
pg1-socket-path=${DIR}
pg1-port=${PORT}
pg1-user=postgres
`)
  if (root) execFileSync('chown', ['-R', 'postgres:postgres', DIR])
  asPg(`${BIN}/initdb`, ['-D', pgData('pg'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'])
  writeFileSync(path.join(pgData('pg'), 'postgresql.auto.conf'), `wal_level = replica
archive_mode = on
archive_command = 'pgbackrest --config=${CONF} --stanza=till archive-push %p'
archive_timeout = 60
max_connections = 100
`)
  if (root) execFileSync('chown', ['postgres:postgres', path.join(pgData('pg'), 'postgresql.auto.conf')])
  startPostgres(pgData('pg'))
  asPg(`${BIN}/psql`, ['-h', DIR, '-p', String(PORT), '-U', 'postgres', '-qc', 'create database till'])
  backrest('stanza-create')
  backrest('check')
}

let till: Till | null = null
let sink: WebhookSink | null = null
const tillDirs: string[] = []
const report: string[] = []

async function startOn(): Promise<Till> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-pitr-'))
  tillDirs.push(dir)
  return startTill(dir, { DATABASE_URL: url, SECRETS_KEY, WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_SECOND: '100000' })
}

after(async () => {
  if (till && till.child.exitCode === null) await stopTill(till)
  await sink?.close()
  stopPostgres(pgData('pg-restored'))
  stopPostgres(pgData('pg'))
  for (const d of tillDirs) rmSync(d, { recursive: true, force: true })
  console.log(`\nPITR drill, measured:\n${report.join('\n')}`)
})

/** Load for at least `writes` acknowledged writes more. */
async function loadFor(load: Load, writes: number, tag: string) {
  const from = load.acked().length
  load.start(3, tag)
  await until(`${writes} writes (${tag})`, 120_000, () => load.acked().length >= from + writes, 100)
  await load.stop()
}

test('restore to a moment T: everything acknowledged before T is back, nothing after', { timeout: 900_000 }, async () => {
  setUp()
  sink = await startWebhookSink()
  till = await startOn()
  const key = await demoKey(till)
  assert.equal((await api(till, 'POST', '/api/v1/webhook_endpoints', key, { url: sink.url })).status, 201)
  const load = new Load([till], key)

  await loadFor(load, 60, 'before-backup')
  const backupStarted = performance.now()
  load.start(3, 'during-backup')
  await backupAsync('full')
  const duringBackup = load.acked().filter((a) => a.endedAt > backupStarted).length
  await load.stop()
  report.push(`  full backup under load: ${((performance.now() - backupStarted) / 1000).toFixed(1)} s, ${duringBackup} writes acknowledged meanwhile`)
  await loadFor(load, 60, 'after-backup')

  // T: just after an acknowledged write, with nothing in flight (the load is stopped), so every
  // write is clearly before or after it.
  const lastBefore = load.acked().at(-1)!
  await new Promise((r) => setTimeout(r, 1100)) // commit timestamps on either side of T differ by more than clock resolution
  const target = databaseNow()
  const atT = performance.now()
  const deliveredBeforeT = new Set(sink.deliveries.map((d) => d.id))
  await new Promise((r) => setTimeout(r, 1100))
  await loadFor(load, 60, 'after-t')
  const after = load.answers.filter((a) => a.startedAt > atT)
  assert.ok(after.some((a) => a.status === 200))

  // The primary is lost once its WAL is archived (check forces a segment switch and waits for it).
  backrest('check')
  await stopTill(till)
  till = null
  stopPostgres(pgData('pg'), 'immediate')

  const restoreStarted = performance.now()
  mkdirSync(pgData('pg-restored'), { mode: 0o700 })
  if (root) execFileSync('chown', ['postgres:postgres', pgData('pg-restored')])
  backrest(`--pg1-path=${pgData('pg-restored')}`, '--type=time', `--target=${target}`, '--target-action=promote', 'restore')
  startPostgres(pgData('pg-restored'))
  await until('recovery to T ends and the database takes writes', 120_000, () => {
    try {
      return asPg(`${BIN}/psql`, ['-h', DIR, '-p', String(PORT), '-U', 'postgres', '-tAc', 'select pg_is_in_recovery()']).trim() === 'f'
    } catch {
      return false
    }
  }, 250)
  const deliveredBeforeRestart = sink.deliveries.length
  till = await startOn()
  const rto = performance.now() - restoreStarted

  const acked = (answers: Answer[], before: boolean) => answers.filter((a) => a.status === 200 && (before ? a.endedAt < atT : a.startedAt > atT))
  const problems: string[] = []
  for (const a of acked(load.answers, true)) {
    if (a.kind === 'checkout' && (await api(till, 'GET', `/api/v1/sessions/${a.body.id}`, key)).status !== 200) problems.push(`session ${a.body.id} lost`)
    if (a.kind === 'pay') {
      const record = await api(till, 'GET', `/api/v1/records/${a.body.record.id}`, key)
      const refunded = acked(load.answers, true).filter((r) => r.kind === 'refund' && r.body.id === a.body.record.id).reduce((s, r) => s + r.body.refund.amount, 0)
      if (record.status !== 200 || record.body.amount !== a.body.record.amount || record.body.refundedAmount !== refunded) {
        problems.push(`payment ${a.body.record.id}: ${record.status} refunded ${record.body?.refundedAmount}, expected ${refunded}`)
      }
    }
    if (a.kind === 'refund') {
      const refund = await api(till, 'GET', `/api/v1/refunds/${a.body.refund.id}`, key)
      if (refund.status !== 200 || refund.body.status !== a.body.refund.status) problems.push(`refund ${a.body.refund.id} lost`)
    }
  }
  for (const a of acked(load.answers, false)) {
    const id = a.kind === 'checkout' ? `sessions/${a.body.id}` : a.kind === 'pay' ? `records/${a.body.record.id}` : `refunds/${a.body.refund.id}`
    if ((await api(till, 'GET', `/api/v1/${id}`, key)).status !== 404) problems.push(`${id}, made after T, is there`)
  }
  // Every event delivered before T is held again; the restored Till sends again those not marked delivered by T.
  for (const id of deliveredBeforeT) {
    if ((await api(till, 'GET', `/api/v1/events/${id}`, key)).status !== 200) problems.push(`event ${id}, delivered before T, lost`)
  }
  assert.deepEqual(problems, [])

  await until('the outbox catches up after the restore', 60_000, async () => {
    const held = await heldEvents(till!, key)
    return [...held].every((id) => sink!.received.has(id))
  }, 500)
  const again = sink.deliveries.slice(deliveredBeforeRestart).filter((d) => sink!.deliveries.slice(0, deliveredBeforeRestart).some((e) => e.id === d.id))
  const repeatedOfBeforeT = again.filter((d) => deliveredBeforeT.has(d.id)).length
  report.push(`  writes acknowledged before T: ${acked(load.answers, true).length}, all there; after T: ${acked(load.answers, false).length}, none there`)
  report.push(`  RTO (restore to T, PostgreSQL recovered, Till ready): ${(rto / 1000).toFixed(1)} s`)
  report.push(`  RPO at T: 0 acknowledged writes lost; the newest write restored was acknowledged ${((atT - lastBefore.endedAt) / 1000).toFixed(1)} s before T (the load paused there)`)
  report.push(`  outbox after the restore: ${again.length} deliveries repeated, ${repeatedOfBeforeT} of them of events first delivered before T`)
})

function databaseNow(): string {
  return asPg(`${BIN}/psql`, ['-h', DIR, '-p', String(PORT), '-U', 'postgres', '-tAc', "select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'"]).trim()
}

async function heldEvents(t: Till, key: string): Promise<Set<string>> {
  const ids = new Set<string>()
  let after: string | undefined
  for (;;) {
    const page = await api(t, 'GET', `/api/v1/events?limit=100${after ? `&starting_after=${after}` : ''}`, key)
    assert.equal(page.status, 200, JSON.stringify(page.body))
    for (const e of page.body.data) ids.add(e.id)
    if (!page.body.hasMore || page.body.data.length === 0) return ids
    after = page.body.data.at(-1).id
  }
}
