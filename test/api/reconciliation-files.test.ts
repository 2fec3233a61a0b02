/**
 * Reconciliation's files (docs/reconciliation.md): a download refused keeps nothing, a fetched file is
 * kept in chunks as it arrives and in one transaction, and a day of more lines than a batch is parsed
 * while its lines are written and run again from its kept file. The statement comes from the stub
 * source attached to the WeChat Pay adapter (helpers/reconciliation.ts).
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { StatementNotReady } from '../../src/providers/statements.js'
import { ProviderError } from '../../src/providers/types.js'
import {
  attachStatements, lineOf, reconAt as at, RECON_DAY as DAY, RECON_NEXT_MORNING as NEXT_MORNING, reconTill, runReconciliation as run, sumsOf, type ReconTill,
} from '../helpers/reconciliation.js'

async function kept(r: ReconTill, id: string) {
  const count = async (table: string) => Number((await r.q(`select count(*)::int as n from ${table} where statement_id = $1`, [id])).rows[0].n)
  return { files: await count('statement_files'), lines: await count('statement_lines'), items: await count('reconciliation_items') }
}

test('a download refused (its hash did not match) keeps nothing; a provider\'s refusal and a file not in the format say why', async (t) => {
  const r = await reconTill(t)
  await r.payment({ paidAt: at('10:00') })
  r.stub.notReady(DAY, 'the download does not match the SHA1 the API gave', 600)
  r.ta.clock.set(NEXT_MORNING)
  const [report] = (await run(r)).body.data
  assert.deepEqual([report.state, report.reason], ['waiting', 'the download does not match the SHA1 the API gave'])
  assert.equal(report.nextTryAt, new Date(NEXT_MORNING.getTime() + 15 * 60_000).toISOString())
  assert.deepEqual(await kept(r, report.id), { files: 0, lines: 0, items: 0 })

  r.stub.throws(DAY, new ProviderError('rejected', 'SIGN_ERROR', 'signature check failed'))
  const [refused] = (await run(r)).body.data
  assert.deepEqual([refused.state, refused.reason], ['failed', 'the provider refused the statement: signature check failed'])
  assert.deepEqual(await kept(r, report.id), { files: 0, lines: 0, items: 0 })

  // Published, but not what the parser reads: the files are kept (a fixed parser reads them again), nothing else.
  r.stub.badFile(DAY)
  const [bad] = (await run(r)).body.data
  assert.equal(bad.state, 'failed')
  assert.match(bad.reason, /^the statement is not in the expected format: /)
  assert.deepEqual(await kept(r, report.id), { files: 1, lines: 0, items: 0 })
  assert.equal((await r.q('select count(*)::int as n from statement_files where statement_id = $1 and sha256 ~ $2', [report.id, '^[0-9a-f]{64}$'])).rows[0].n, 1)
})

test('a day of more lines than a batch: parsed while lines are written, and run again from its kept file to the same result', async (t) => {
  const r = await reconTill(t)
  const n = 5000
  await r.q(`insert into sessions (id, merchant_id, mode, status, amount, currency, chosen_provider, provider_config_id, expires_at, created_at, updated_at)
             select 'sess_b' || lpad(g::text, 23, '0'), $1, 'live', 'paid', 1000 + g, 'CNY', 'wechat', $2, $3, $3, $3 from generate_series(1, $4::int) g`,
  [r.ta.merchant.id, r.configId, at('12:00'), n])
  await r.q(`insert into attempts (id, session_id, merchant_id, mode, provider, provider_config_id, status, created_at, updated_at)
             select 'att_b' || lpad(g::text, 23, '0'), 'sess_b' || lpad(g::text, 23, '0'), $1, 'live', 'wechat', $2, 'succeeded', $3, $3 from generate_series(1, $4::int) g`,
  [r.ta.merchant.id, r.configId, at('12:00'), n])
  await r.q(`insert into records (id, session_id, attempt_id, merchant_id, mode, provider, provider_config_id, provider_ref, amount, currency, status, paid_at, created_at)
             select 'rec_b' || lpad(g::text, 23, '0'), 'sess_b' || lpad(g::text, 23, '0'), 'att_b' || lpad(g::text, 23, '0'), $1, 'live', 'wechat', $2, 'wx' || g, 1000 + g, 'CNY', 'paid', $3, $3
             from generate_series(1, $4::int) g`, [r.ta.merchant.id, r.configId, at('12:00'), n])
  const paid = Array.from({ length: n }, (_, i) => ({ sessionId: '', attemptId: `att_b${String(i + 1).padStart(23, '0')}`, recordId: '', amount: 1001 + i, currency: 'CNY', paidAt: at('12:00') }))
  r.stub.set(DAY, { lines: paid.map((p, i) => lineOf(p, i === 0 ? { amount: 1 } : {})) })
  r.ta.clock.set(NEXT_MORNING)
  const [first] = (await run(r)).body.data
  assert.deepEqual([first.state, first.reason, first.counts.matched, first.counts.amount_differs], ['reconciled', null, n - 1, 1])
  assert.equal((await kept(r, first.id)).lines, n)
  const [again] = (await run(r)).body.data
  assert.deepEqual([again.state, again.reason, again.counts], ['reconciled', null, first.counts])
  assert.equal(r.stub.fetches.length, 1)
})

test('a fetched file is kept in chunks as it arrives, in one transaction: a hash that fails at its end keeps nothing', async (t) => {
  const r = await reconTill(t)
  const a = await r.payment({ paidAt: at('10:00') })
  const lines = [lineOf(a)]
  // More than a chunk (1 MiB) of blank lines between the detail and the summary, arriving in pieces.
  const pieces = [
    Buffer.from(`${JSON.stringify(lines[0])}\n`),
    ...Array.from({ length: 6 }, () => Buffer.alloc(256 * 1024, 0x0a)),
    Buffer.from(`${JSON.stringify(sumsOf(lines)[0])}\n`),
  ]
  const chunksSize = async () => Number((await r.q(`select pg_total_relation_size('statement_file_chunks')::float8 as n`, [])).rows[0].n)
  let corrupt = true
  let grown = false
  attachStatements(r.ta.deps, 'wechat', {
    ...r.stub.source,
    async fetch() {
      async function* body() {
        const before = await chunksSize()
        for (const [i, p] of pieces.entries()) {
          // Seen from another connection: the first chunk's row is on disk before the last piece arrives.
          if (i === pieces.length - 1) grown = (await chunksSize()) > before
          yield p
        }
        if (corrupt) throw new StatementNotReady('tradebill: the download does not match WeChat Pay\'s SHA1; refused', 60)
      }
      return { ready: true, files: [{ name: 'tradebill', type: 'application/x-ndjson', body: body() }] }
    },
  })
  r.ta.clock.set(NEXT_MORNING)
  const [refused] = (await run(r)).body.data
  assert.deepEqual([refused.state, refused.reason], ['waiting', 'tradebill: the download does not match WeChat Pay\'s SHA1; refused'])
  assert.equal(grown, true, 'written while the download arrived')
  assert.deepEqual(await kept(r, refused.id), { files: 0, lines: 0, items: 0 })
  assert.equal((await r.q('select count(*)::int as n from statement_file_chunks', [])).rows[0].n, 0)

  corrupt = false
  grown = false
  const [report] = (await run(r)).body.data
  assert.deepEqual([report.state, report.counts.matched, grown], ['reconciled', 1, true])
  const whole = Buffer.concat(pieces)
  const { rows: [file] } = await r.q('select size, sha256 from statement_files where statement_id = $1', [report.id])
  assert.deepEqual(file, { size: whole.length, sha256: createHash('sha256').update(whole).digest('hex') })
  const { rows: chunks } = await r.q('select seq, length(data) as n from statement_file_chunks where statement_id = $1 order by seq', [report.id])
  assert.deepEqual(chunks.map((c) => [c.seq, c.n]), [[0, 1 << 20], [1, whole.length - (1 << 20)]])
  // Run again from the kept chunks: the same result.
  const [again] = (await run(r)).body.data
  assert.deepEqual([again.state, again.counts], ['reconciled', report.counts])
})
