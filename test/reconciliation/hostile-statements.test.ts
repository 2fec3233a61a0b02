/**
 * A merchant's own statement source cannot take the process down (issue 36, docs/operate.md#what-till-reads-from-a-provider):
 * a merchant may point its Alipay configuration at a server it controls, which then supplies the
 * day's bill. A zip bomb, a zip of 100,000 entries, an endless download and a gzip bomb are each
 * refused: the day `failed` with a short reason, the process's memory growth bounded (measured
 * here), and another merchant's requests answered throughout. A stop finishes while a download is
 * in flight. The bill query goes to the Alipay fake (signed, as Alipay's); its download to the hostile server.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { JOBS, startJobs } from '../../src/jobs/runner.js'
import type { AlipayClient } from '../../src/providers/alipay/http.js'
import { alipayStatements } from '../../src/providers/alipay/statements.js'
import { exchangeStream } from '../../src/providers/exchange.js'
import { oneChunk } from '../../src/providers/statement-stream.js'
import type { StatementLimits } from '../../src/providers/limits.js'
import type { WechatClient } from '../../src/providers/wechat/http.js'
import { wechatStatements } from '../../src/providers/wechat/statements.js'
import { alipayBillPublishedAt } from '../helpers/alipay.js'
import { alipayTill } from '../helpers/alipay-till.js'
import { gzipBomb, hostileServer, measured, serveBytes, serveEndless, zeros, zipOf } from '../helpers/hostile.js'
import { attachStatements, RECON_DAY, RECON_NEXT_MORNING, reconTill } from '../helpers/reconciliation.js'

const MiB = 1 << 20
const DAY = '2026-05-20'
/** Small enough to show the bounds quickly, large enough for any real test day. */
const LIMITS: StatementLimits = { maxBytes: 16 * MiB, zipMaxBytes: 16 * MiB, downloadMs: 120_000 }
/** Far below what any of these files would take unbounded (hundreds of MiB, or without end). */
const GROWTH_BOUND_MIB = 96
const DETAIL = '20885_20260520_业务明细.csv'
const SUMMARY = '20885_20260520_业务明细(汇总).csv'

/** A live Alipay merchant whose bill downloads come from `hostile` (the query, signed, from the fake), and another merchant. */
async function hostileAlipay(t: TestContext, hostileUrl: string) {
  const s = await alipayTill(t, { config: { statementLimits: LIMITS }, at: new Date(`${DAY}T08:00:00+08:00`) })
  const real = (s.ta.deps.providers.get('alipay') as unknown as { client: AlipayClient }).client
  const client = Object.assign(Object.create(real), { download: (_url: string, bounds: object) => real.download(hostileUrl, bounds) }) as AlipayClient
  attachStatements(s.ta.deps, 'alipay', alipayStatements(client, () => s.ta.clock(), LIMITS))
  s.ta.clock.set(alipayBillPublishedAt(DAY))
  const other = await s.ta.newMerchant('Another shop')
  const run = async () => {
    const res = await s.ta.admin('POST', '/reconciliation/runs', { date: DAY, providerConfigId: s.configId })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data[0] as { state: string; reason: string }
  }
  return { ...s, other, run }
}

function assertBounded(m: Awaited<ReturnType<typeof measured>>) {
  assert.ok(m.growthMiB < GROWTH_BOUND_MIB, `memory grew ${m.growthMiB.toFixed(1)} MiB`)
  assert.ok(m.answered > 0, 'the other merchant was answered while the day ran')
  // Relative to the same requests on a quiet process: never held up behind the hostile file.
  assert.ok(m.slowestMs <= Math.max(500, 10 * m.quietMs), `the other merchant waited ${m.slowestMs.toFixed(0)} ms (quiet: ${m.quietMs.toFixed(0)} ms)`)
}

test('a zip bomb (an entry of 400 MiB in a few hundred KB) is refused before it is inflated', async (t) => {
  const bomb = await zipOf([{ name: DETAIL, body: zeros(400), size: 400 * MiB }, { name: SUMMARY, body: Buffer.from('x') }])
  assert.ok(bomb.length < 2 * MiB)
  const h = await hostileServer(t, serveBytes(bomb, 'application/zip'))
  const s = await hostileAlipay(t, h.url)
  const m = await measured(s.ta, s.other.liveKey, s.run)
  assert.equal(m.result.state, 'failed')
  assert.equal(m.result.reason, `the bill's zip entry ${DETAIL} unpacks to 400 MiB, more than 16 MiB; refused`)
  assertBounded(m)
})

test('a zip of 100,000 entries is refused from its directory, without reading them, and names a few at most', async (t) => {
  const entries = Array.from({ length: 100_000 }, (_, i) => ({ name: `${i}.csv`, body: Buffer.alloc(0) }))
  const zip = await zipOf(entries)
  const h = await hostileServer(t, serveBytes(zip, 'application/zip'))
  const s = await hostileAlipay(t, h.url)
  const m = await measured(s.ta, s.other.liveKey, s.run)
  assert.equal(m.result.state, 'failed')
  assert.equal(m.result.reason, "the bill's zip holds 100000 entries, more than 16; refused")
  assertBounded(m)
})

test('an endless download is cut at its cap, the connection closed', async (t) => {
  const endless = serveEndless()
  const h = await hostileServer(t, endless.serve)
  const s = await hostileAlipay(t, h.url)
  const m = await measured(s.ta, s.other.liveKey, s.run)
  assert.equal(m.result.state, 'failed')
  assert.equal(m.result.reason, "the statement was not fetched: Alipay's answer is larger than 16 MiB; refused")
  await endless.closed
  assertBounded(m)
})

test('a zip without the two files names a few of its entries at most', async (t) => {
  const zip = await zipOf(Array.from({ length: 12 }, (_, i) => ({ name: `file-${i}.csv`, body: Buffer.from('a') })))
  const h = await hostileServer(t, serveBytes(zip, 'application/zip'))
  const s = await hostileAlipay(t, h.url)
  const day = await s.run()
  assert.equal(day.state, 'failed')
  assert.equal(day.reason, "Alipay's bill zip holds file-0.csv, file-1.csv, file-2.csv, file-3.csv, file-4.csv and 7 more, not the detail and summary files")
})

test('a gzip bomb (WeChat Pay\'s bill, 400 MiB in a few hundred KB) is refused at the cap while it is unpacked', async (t) => {
  const bomb = await gzipBomb(400)
  const h = await hostileServer(t, serveBytes(bomb, 'application/gzip'))
  const r = await reconTill(t)
  r.ta.deps.config.statementLimits = LIMITS
  // WeChat Pay's apply step answered (signed, as WeChat's); the download is the hostile server's.
  const client = {
    call: async () => ({ status: 200, data: { hash_type: 'SHA1', hash_value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', download_url: 'https://api.mch.weixin.qq.com/v3/billdownload/file?token=x' } }),
    getFile: async (_cfg: unknown, _target: string, _headers: unknown, bounds: { maxBytes: number; deadlineMs: number }) => {
      const res = await exchangeStream(`${h.url}/file`, { method: 'GET', headers: {}, dispatcher: undefined as never, timeoutMs: 10_000, ...bounds }, 'WeChat Pay')
      return { status: res.statusCode, headers: res.headers, body: res.body }
    },
  } as unknown as WechatClient
  attachStatements(r.ta.deps, 'wechat', wechatStatements(client, { now: () => r.ta.clock(), limits: LIMITS }))
  r.ta.clock.set(RECON_NEXT_MORNING)
  const other = await r.ta.newMerchant('Another shop')
  const m = await measured(r.ta, other.liveKey, async () => (await r.ta.admin('POST', '/reconciliation/runs', { date: RECON_DAY, providerConfigId: r.configId })).body.data[0])
  assert.equal(m.result.state, 'failed')
  assert.equal(m.result.reason, 'the file unpacks to more than 16 MiB; refused')
  assertBounded(m)
})

test('a stop finishes while a statement download is in flight: the download is ended, the day waits', async (t) => {
  const endless = serveEndless()
  const h = await hostileServer(t, endless.serve)
  const s = await hostileAlipay(t, h.url)
  const job = JOBS.find((j) => j.name === 'reconcile-statements')!
  const jobs = startJobs(s.ta.deps, [{ ...job, everyMs: 10 }])
  await h.first
  await jobs.stop()
  await endless.closed
  const { rows } = await s.ta.database.pool.query('select state, reason from statements where provider_config_id = $1', [s.configId])
  assert.deepEqual(rows, [{ state: 'waiting', reason: 'Till stopped while Alipay answered' }])
})

test('a day\'s files past the cap together (pages of a search, any provider) are refused as they are kept, nothing kept', async (t) => {
  const r = await reconTill(t)
  r.ta.deps.config.statementLimits = LIMITS
  // Seventeen pages of 1 MiB each: none too large alone, too many together.
  const page = Buffer.alloc(MiB, 0x20)
  attachStatements(r.ta.deps, 'wechat', {
    zone: 'Asia/Shanghai',
    fetch: async () => ({ ready: true, files: Array.from({ length: 17 }, (_, i) => ({ name: `page-${i}`, type: 'application/json', body: oneChunk(page) })) }),
    parse: () => { throw new Error('not reached') },
  })
  r.ta.clock.set(RECON_NEXT_MORNING)
  const day = (await r.ta.admin('POST', '/reconciliation/runs', { date: RECON_DAY, providerConfigId: r.configId })).body.data[0]
  assert.deepEqual([day.state, day.reason], ['failed', 'the statement holds more than 16 MiB; refused'])
  assert.equal((await r.q('select count(*)::int as n from statement_files where statement_id = $1', [day.id])).rows[0].n, 0)
})
