/**
 * `npm run bench -- profile`: where a request's CPU time goes, in Till and in the ceiling, under each
 * load (GET, checkout, refund, the last two also with a fresh Idempotency-Key) and for webhook
 * delivery. Till and the ceiling each run once with --cpu-prof; every load runs on each in turn, and
 * the profile is cut to the load's window (process.hrtime and V8's profile clock are both
 * CLOCK_MONOTONIC), so one process gives every load's figures. Self time is summed by area
 * (bench/profile.ts `byArea`) and divided by the requests answered: CPU µs per request by area.
 * The profiles are kept in BENCH_PROFILE_DIR (default: a temporary directory, removed) for
 * `npx tsx bench/profile.ts FILE`. Knobs: BENCH_PROFILE_SECONDS (5 per load), BENCH_CONNECTIONS (32).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spec, startCeiling } from './api.js'
import { openBenchDb } from './db.js'
import { addPaidRecords, addSessions, sampleSessionIds } from './fixtures.js'
import { runLoad, type LoadSpec } from './load.js'
import { AREAS, perRequest, type Area, type PerRequest, type Profile } from './profile.js'
import { context, failures, fmt, table } from './report.js'
import { benchMerchant, startTill } from './till.js'
import { profileWebhooks } from './webhooks.js'

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS) || 5
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

interface Window {
  load: string
  from: number
  to: number
  requests: number
}

/** Runs the load (after a 2 s warm-up outside the window) and returns its window on the monotonic clock. */
async function window(load: string, s: LoadSpec): Promise<Window> {
  await runLoad({ ...s, seconds: 2 })
  const from = monotonicUs()
  const r = await runLoad(s)
  const to = monotonicUs()
  const f = failures(r)
  if (f) console.warn(`  ! ${load}: answers other than 2xx: ${f}`)
  return { load, from, to, requests: r.requests }
}

/** The main thread's profile (`CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`; tsx's loader thread writes its own). */
const readProfile = (dir: string): Profile => {
  const file = readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
  if (!file) throw new Error(`no profile written in ${dir}`)
  return JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile
}

/** One table: areas down, each load's Till and ceiling µs per request across. */
export function areaTable(columns: { name: string; till: PerRequest; ceiling: PerRequest }[]): string {
  const cell = (r: PerRequest, a: Area) => {
    const t = r.areas.get(a) ?? 0
    return t ? `${fmt(t)} (${Math.round((100 * t) / r.busy)} %)` : '–'
  }
  const used = AREAS.filter((a) => columns.some((c) => c.till.areas.get(a) || c.ceiling.areas.get(a)))
  return table(
    ['µs of CPU per request (share)', ...columns.flatMap((c) => [`${c.name}: Till`, 'ceiling'])],
    [
      ...used.map((a) => [a, ...columns.flatMap((c) => [cell(c.till, a), cell(c.ceiling, a)])]),
      ['**in all** (Till ÷ ceiling)', ...columns.flatMap((c) => [`**${fmt(c.till.busy)}** (${(c.till.busy / c.ceiling.busy).toFixed(2)}×)`, `**${fmt(c.ceiling.busy)}**`])],
    ],
  )
}

export async function benchProfile(): Promise<string> {
  const keep = process.env.BENCH_PROFILE_DIR
  const root = keep ? path.resolve(keep) : mkdtempSync(path.join(os.tmpdir(), 'till-profile-'))
  const [tillDir, ceilingDir, hooksDir] = ['till', 'ceiling', 'webhooks'].map((d) => path.join(root, d))
  for (const d of [tillDir, ceilingDir, hooksDir]) rmSync(d, { recursive: true, force: true })
  const db = await openBenchDb()
  const till = await startTill(db.url, {}, tillDir)
  const windows: { till: Window[]; ceiling: Window[] } = { till: [], ceiling: [] }
  try {
    const m = await benchMerchant(till.base)
    const ceiling = await startCeiling(db.url, m.id, ceilingDir)
    try {
      const pool = db.database.pool
      await addSessions(pool, m.id, 10_000)
      const ids = await sampleSessionIds(pool, m.id, 10_000)
      const records = { till: await addPaidRecords(pool, m.id, 2000), ceiling: await addPaidRecords(pool, m.id, 2000) }
      const loads: [string, 'get' | 'checkout' | 'refund', boolean][] = [
        ['GET', 'get', false], ['checkout', 'checkout', false], ['checkout + key', 'checkout', true], ['refund', 'refund', false], ['refund + key', 'refund', true],
      ]
      for (const [name, endpoint, keyed] of loads) {
        const extra = { seconds: SECONDS, ...(keyed ? { uniqueHeader: 'idempotency-key' } : {}) }
        const data = (side: 'till' | 'ceiling') => ({ sessionIds: ids, recordIds: records[side] })
        windows.ceiling.push(await window(name, spec(endpoint, [ceiling.base], m.key, data('ceiling'), extra)))
        windows.till.push(await window(name, spec(endpoint, [till.base], m.key, data('till'), extra)))
        console.log(`  profile ${name}: till ${fmt(windows.till.at(-1)!.requests / SECONDS)} req/s, ceiling ${fmt(windows.ceiling.at(-1)!.requests / SECONDS)} req/s, load ${os.loadavg()[0].toFixed(1)}`)
      }
    } finally {
      await ceiling.stop()
    }
  } finally {
    await till.stop()
    await db.close()
  }
  const tillProfile = readProfile(tillDir)
  const ceilingProfile = readProfile(ceilingDir)
  const api = windows.till.map((w, i) => ({ name: w.load, till: perRequest(tillProfile, w), ceiling: perRequest(ceilingProfile, windows.ceiling[i]) }))
  const hooks = await profileWebhooks(hooksDir)
  if (keep) writeFileSync(path.join(root, 'windows.json'), JSON.stringify(windows, null, 1))
  else rmSync(root, { recursive: true, force: true })
  return [
    '## Where the time goes: CPU profiles by area',
    context([
      `Till and the ceiling (bench/ceiling.ts) each one process under \`node --cpu-prof\` on one embedded PostgreSQL, 32 connections, ${SECONDS} s per load after a 2 s warm-up, loads one after another (ceiling, then Till); the webhook worker and the plain signed-POST loop in the bench's own process (inspector profiler), ${fmt(hooks.deliveries)} deliveries each`,
      'Self time of each sample counted to an area by its frame, or, for Node internals and V8 builtins, by the nearest caller that has one (a hash under the key check is authentication; JSON builtins are serialisation wherever called); socket reads and writes, to clients and to PostgreSQL alike, are their own area; idle and V8\'s own `(program)` time left out; divided by the requests answered (2xx) in the window. PostgreSQL\'s own CPU is not in these figures (the api section gives it)',
      `Requests per second in the windows (Till vs ceiling): ${api.map((c, i) => `${c.name} ${fmt(windows.till[i].requests / SECONDS)} vs ${fmt(windows.ceiling[i].requests / SECONDS)}`).join('; ')}`,
    ]),
    '',
    areaTable(api.slice(0, 3)),
    '',
    areaTable([...api.slice(3), { name: 'webhook delivery', till: hooks.worker, ceiling: hooks.loop }]),
    '',
    'The webhook columns: the outbox worker (lease, signed POST, recorded attempt) against the plain loop of signed POSTs to the same receiver; its "SQL" is the worker\'s own statements, its "handler and service" the worker\'s bookkeeping and signing.',
  ].join('\n')
}
