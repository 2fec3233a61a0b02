/**
 * One reconciliation run in a process of its own, so its memory is its own: the day of a
 * configuration reconciled through services/reconciliation.ts (Till's code path, its pool and query
 * timeout) against a statement file on disk, handed over and parsed as streams. Prints one JSON line:
 * wall time, peak RSS (sampled every 5 ms, and the kernel's high-water mark) and the item counts.
 *
 * argv: DATABASE_URL CONFIG_ID DAY FILE MODE, MODE = `run` (fetch, parse, match; or, once the file
 * is kept, parse and match), `refetch` (the kept file forgotten first: fetched again) or `sql` (the
 * ceiling: the same lines written and the same pairs read, nothing classified or kept). SECRETS_KEY
 * in the environment (the configuration's credentials are sealed with it).
 */
import { createReadStream } from 'node:fs'
import { loadConfig } from '../src/config.js'
import { createDeps } from '../src/deps.js'
import { textLines } from '../src/providers/statement-stream.js'
import type { StatementItem, StatementLine, StatementSource } from '../src/providers/statements.js'
import { runDayNow } from '../src/services/reconciliation.js'
import { openPool } from '../src/store/db.js'
import { getProviderConfigUnscoped } from '../src/store/repos/provider-configs.js'
import * as repo from '../src/store/repos/reconciliation.js'
import { attachStatements } from '../test/helpers/reconciliation.js'

const [url, configId, day, file, mode] = process.argv.slice(2)

/** The bench's statement format, a CSV line each: kind,tillRef,providerRef,amount,currency,status,fee,at,product; then one `total` line. */
async function* parse(body: AsyncIterable<Buffer>): AsyncGenerator<StatementItem> {
  for await (const { text, line } of textLines(body)) {
    const cells = text.split(',')
    if (cells[0] === 'total') {
      const [, currency, pc, pa, rc, ra, fees] = cells
      yield { kind: 'total', currency, payments: { count: +pc, amount: +pa }, refunds: { count: +rc, amount: +ra }, fees: +fees }
      continue
    }
    const [kind, tillRef, providerRef, amount, currency, status, fee, at, product] = cells
    yield {
      kind: kind as StatementLine['kind'], tillRef, providerRef, amount: +amount, currency, status: status as StatementLine['status'], fee: +fee,
      at: new Date(at), source: { file: 'tradebill', line, fields: { 商品名称: product, 商户订单号: tillRef } },
    }
  }
}

// The file read as a download arrives: in pieces (64 KiB), never whole.
const body = () => createReadStream(file)
const source: StatementSource = {
  zone: 'Asia/Shanghai',
  fetch: async () => ({ ready: true, files: [{ name: 'tradebill', type: 'text/csv; charset=utf-8', body: body() }] }),
  parse: (files) => parse(files[0].body),
}

const silent = { info() {}, warn() {}, error() {} }
const database = openPool(url, 4)
const deps = createDeps({ ...loadConfig({}), jobsEnabled: false }, database.db, Buffer.from(process.env.SECRETS_KEY!, 'base64'), silent)
attachStatements(deps, 'wechat', source)

/** The ceiling: the lines written in the same batches and the pairs read through the same cursor, in a transaction rolled back. */
async function sqlOnly(): Promise<Record<string, number>> {
  const s = (await repo.listStatementsUnscoped(deps.db, { providerConfigId: configId, day }, { limit: 1 })).rows[0]
  let pairs = 0
  await deps.db.transaction(async (tx) => {
    await repo.deleteLines(tx, s.id)
    let batch: StatementLine[] = []
    for await (const item of parse(body())) {
      if (item.kind === 'total') continue
      batch.push(item)
      if (batch.length >= 2000) await repo.insertLines(tx, s.id, configId, batch.splice(0))
    }
    await repo.insertLines(tx, s.id, configId, batch)
    await repo.openPairs(tx, { statementId: s.id, merchantId: s.merchantId, mode: s.mode, configId, ...(await repo.dayBounds(tx, day, s.zone)), refundsPerPayment: false }, s.zone)
    for (let rows = await repo.fetchPairs(tx, 2000); rows.length; rows = await repo.fetchPairs(tx, 2000)) pairs += rows.length
    tx.rollback()
  }).catch((e) => {
    if (!/rollback/i.test(String(e?.message ?? e))) throw e
  })
  return { pairs }
}

if (mode === 'refetch') await database.pool.query('update statements set fetched_at = null where provider_config_id = $1 and day = $2', [configId, day])
let peak = process.memoryUsage.rss()
const before = peak
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5)
const t0 = performance.now()
const counts = mode === 'sql' ? await sqlOnly() : (await runDayNow(deps, (await getProviderConfigUnscoped(deps.db, configId))!, day)).counts
const ms = performance.now() - t0
clearInterval(sampler)
peak = Math.max(peak, process.memoryUsage.rss())
process.stdout.write(`${JSON.stringify({ ms, rssBefore: before, rssPeak: peak, maxRss: process.resourceUsage().maxRSS * 1024, counts })}\n`)
await database.close()
process.exit(0)
