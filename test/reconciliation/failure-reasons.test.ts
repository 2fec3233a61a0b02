/**
 * Why a day failed is short and says nothing internal (issue 36 §3.3, docs/reconciliation.md): a
 * NUL in a statement's cell is named with its line when the statement is read, not left to fail the
 * insert (whose error quoted the whole SQL statement and its parameters); a database error shows as
 * "internal error, see log <id>" with the detail in the server log only; any reason is at most 500
 * characters.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_REASON } from '../../src/domain/reasons.js'
import { ProviderError } from '../../src/providers/types.js'
import { lineOf, reconAt as at, RECON_NEXT_MORNING as NEXT_MORNING, reconTill, runReconciliation as run } from '../helpers/reconciliation.js'

test('a NUL in a cell fails the day with a reason that names its line, nothing of the SQL', async (t) => {
  const r = await reconTill(t)
  const p = await r.payment({ paidAt: at('10:00') })
  const line = lineOf(p)
  r.stub.set('2026-05-20', { lines: [{ ...line, source: { ...line.source, fields: { ...line.source.fields, 商品名称: 'Blue\u0000mug' } } }] })
  r.ta.clock.set(NEXT_MORNING)
  const [day] = (await run(r)).body.data
  assert.deepEqual([day.state, day.reason], ['failed', `line ${line.source.line} of tradebill holds a character that cannot be stored (U+0000)`])
})

test('a database error is "internal error, see log <id>"; the detail is in the server log under that id only', async (t) => {
  const logged: string[] = []
  const r = await reconTill(t, { app: { log: (l) => void logged.push(l) } })
  const p = await r.payment({ paidAt: at('10:00') })
  r.stub.set('2026-05-20', { lines: [lineOf(p)] })
  await r.q(`create function refuse_lines() returns trigger language plpgsql as $$ begin raise exception 'lines table is being rebuilt (internal detail)'; end $$`, [])
  await r.q('create trigger refuse_lines before insert on statement_lines for each statement execute function refuse_lines()', [])
  r.ta.clock.set(NEXT_MORNING)
  const [day] = (await run(r)).body.data
  assert.equal(day.state, 'failed')
  const id = /^internal error, see log ([0-9a-f]{12})$/.exec(day.reason)?.[1]
  assert.ok(id, day.reason)
  const entry = logged.map((l) => JSON.parse(l)).find((l) => l.logId === id)
  assert.match(JSON.stringify(entry.err), /lines table is being rebuilt \(internal detail\)/)
})

test('a provider\'s reason of thousands of characters is cut to 500', async (t) => {
  const r = await reconTill(t)
  r.stub.throws('2026-05-20', new ProviderError('rejected', 'SIGN_ERROR', 'signature check failed: ' + 'x'.repeat(5000)))
  r.ta.clock.set(NEXT_MORNING)
  const [day] = (await run(r)).body.data
  assert.equal(day.state, 'failed')
  assert.equal(day.reason.length, MAX_REASON)
  assert.match(day.reason, /^the provider refused the statement: signature check failed: x+…$/)
})
