/**
 * Statements (docs/providers.md#statements): the Creem adapter reads a UTC day's transactions from
 * its fake's transaction search, per product of the configuration, paged; the fake's statement
 * knobs make each kind of mismatch. Creem's official SDK reads the same search answers.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Creem } from 'creem'
import * as C from 'creem/models/components'
import { newId } from '../../src/domain/ids.js'
import { oneChunk } from '../../src/providers/statement-stream.js'
import type { StatementItem, StatementLine } from '../../src/providers/statements.js'
import { creemStatementReadyAt, setup } from '../helpers/creem.js'
import { fetchWhole, type WholeFetch } from '../helpers/reconciliation.js'
import { strictProblems, type ZodLike } from '../helpers/zod-strict.js'

type S = Awaited<ReturnType<typeof setup>>
const DAY = '2026-05-20'

async function read(s: S, f: WholeFetch) {
  assert.equal(f.ready, true, JSON.stringify(f))
  const items: StatementItem[] = []
  for await (const x of s.provider.statements!.parse((f as { files: any[] }).files)) items.push(x)
  return items.filter((x): x is StatementLine => x.kind !== 'total').map(({ source: _s, ...rest }) => rest)
}

/** Creem's refund of the whole payment, answered `pending`, then settled as the fake's outcome says. */
async function refunded(s: S, ref: Awaited<ReturnType<S['paid']>>['ref'], amount: number) {
  await s.provider.refund(s.cfg, { refundId: newId('ref'), amount, totalAmount: amount, currency: 'EUR', reason: null, notifyUrl: 'https://till.example/hooks/creem/pc_test', payment: ref })
  await s.ctl.tick()
}

/** A payment the day before, two on DAY (the first refunded); the clock an hour past DAY's end. */
async function aDay(s: S) {
  s.clock.set(new Date('2026-05-19T23:59:00Z'))
  await s.paid({ amount: 4000 })
  s.clock.set(new Date('2026-05-20T04:00:00Z'))
  const a = await s.paid()
  s.clock.advance(60_000)
  const b = await s.paid({ amount: 5000 })
  await refunded(s, a.ref, 1234)
  s.clock.set(creemStatementReadyAt(DAY))
  return { a, b }
}

test('a clean day: the day\'s transactions of the configuration\'s product, each a payment line, a refunded one with its refund line', async (t) => {
  const s = await setup(t)
  const { a, b } = await aDay(s)
  assert.equal(s.provider.statements!.zone, 'UTC')
  const f = await fetchWhole(s.provider.statements!, s.cfg, DAY)
  const productId = (await s.products.find('pc_test', 100, 'EUR'))!
  assert.deepEqual(f.ready && f.files.map((x) => [x.name, x.type]), [[`transactions-${productId}-1`, 'application/json']])
  assert.deepEqual(await read(s, f), [
    { kind: 'payment', tillRef: null, providerRef: a.ref.providerRef, amount: 1234, currency: 'EUR', status: 'succeeded', fee: null, at: new Date('2026-05-20T04:00:00.000Z') },
    { kind: 'refund', tillRef: null, providerRef: null, paymentTillRef: null, paymentProviderRef: a.ref.providerRef, amount: 1234, currency: 'EUR', status: 'succeeded', fee: null, at: new Date('2026-05-20T04:00:00.000Z') },
    { kind: 'payment', tillRef: null, providerRef: b.ref.providerRef, amount: 5000, currency: 'EUR', status: 'succeeded', fee: null, at: new Date('2026-05-20T04:01:00.000Z') },
  ])
  const asked = (await s.ctl.requests()).filter((r) => r.path.startsWith('/v1/transactions/search')).map((r) => r.path)
  assert.deepEqual(asked, [`/v1/transactions/search?product_id=${productId}&page_number=1&page_size=100`])
  // A line's file and number are its key where it is kept: a refunded transaction's two lines each have their own.
  const sources: StatementItem[] = []
  const again = f.ready ? f.files.map((x) => ({ ...x, body: oneChunk(x.bytes) })) : []
  for await (const x of s.provider.statements!.parse(again)) sources.push(x)
  assert.deepEqual(sources.map((x) => x.kind !== 'total' && x.source.line), [1, 2, 3])
})

test('pages: every page is read, in order', async (t) => {
  const s = await setup(t, { statementPageSize: 2 })
  const paid = []
  for (let i = 0; i < 5; i++) paid.push((await s.paid({ amount: 1000 + i })).ref.providerRef)
  s.clock.set(creemStatementReadyAt(DAY))
  const f = await fetchWhole(s.provider.statements!, s.cfg, DAY)
  assert.equal(f.ready && f.files.length, 3)
  const got = await read(s, f)
  assert.deepEqual(got.map((l) => [l.providerRef, l.amount]), paid.map((p, i) => [p, 1000 + i]))
})

test('not ready until an hour after the UTC day ends; a day without business is ready and empty', async (t) => {
  const s = await setup(t)
  await s.paid()
  assert.deepEqual(await fetchWhole(s.provider.statements!, s.cfg, DAY), { ready: false, reason: `${DAY} (UTC) is not over at Creem yet`, retryAfterS: 21 * 3600 })
  s.clock.set(creemStatementReadyAt('2026-05-19'))
  const empty = await fetchWhole(s.provider.statements!, s.cfg, '2026-05-19')
  assert.deepEqual(empty.ready && empty.files.map((x) => x.name), ['transactions'])
  assert.deepEqual(await read(s, empty), [])
})

test('a page that lost an item while its count stayed (the corrupt knob) is refused whole; the next reading is used', async (t) => {
  const s = await setup(t)
  await aDay(s)
  await s.ctl.statementCorrupt(DAY)
  const productId = (await s.products.find('pc_test', 100, 'EUR'))!
  assert.deepEqual(await fetchWhole(s.provider.statements!, s.cfg, DAY), { ready: false, reason: `product ${productId}: Creem's pages held 2 transactions, its count says 3`, retryAfterS: 60 })
  assert.equal((await read(s, await fetchWhole(s.provider.statements!, s.cfg, DAY))).length, 3)
})

test('each knob shows in the lines: dropped, amount, unknown payment, currency, a refund shown though Till\'s failed; a held day comes late', async (t) => {
  const s = await setup(t)
  const { a, b } = await aDay(s)
  s.clock.set(new Date('2026-05-20T05:00:00Z'))
  await s.ctl.refundOutcome({ status: 'failed' })
  const c = await s.paid({ amount: 700 })
  await refunded(s, c.ref, 700)
  s.clock.set(creemStatementReadyAt(DAY))
  await s.ctl.statementDrop(DAY, { ref: b.a.attemptId, kind: 'payment' })
  await s.ctl.statementAmount(DAY, { ref: a.a.attemptId, kind: 'payment' }, 1200)
  await s.ctl.statementAmount(DAY, { ref: a.a.attemptId, kind: 'refund' }, 1000)
  const unknown = await s.ctl.statementUnknownPayment(DAY, { amount: 777, currency: 'EUR' })
  await s.ctl.statementRefundStatus(DAY, c.a.attemptId, 'refunded')
  const got = await read(s, await fetchWhole(s.provider.statements!, s.cfg, DAY))
  assert.deepEqual(got.map((l) => [l.kind, l.providerRef ?? l.paymentProviderRef, l.amount, l.currency, l.status]), [
    ['payment', a.ref.providerRef, 1200, 'EUR', 'succeeded'],
    ['refund', a.ref.providerRef, 1000, 'EUR', 'succeeded'],
    ['payment', c.ref.providerRef, 700, 'EUR', 'succeeded'],
    ['refund', c.ref.providerRef, 700, 'EUR', 'succeeded'],
    ['payment', unknown.ref, 777, 'EUR', 'succeeded'],
  ])
  await s.ctl.statementReset(DAY)
  await s.ctl.statementCurrency(DAY, { ref: b.ref.providerRef!, kind: 'payment' }, 'USD')
  await s.ctl.statementDrop(DAY, { ref: a.a.attemptId, kind: 'refund' })
  const again = await read(s, await fetchWhole(s.provider.statements!, s.cfg, DAY))
  assert.deepEqual(again.map((l) => [l.kind, l.providerRef, l.currency]), [['payment', a.ref.providerRef, 'EUR'], ['payment', b.ref.providerRef, 'USD'], ['payment', c.ref.providerRef, 'EUR']])

  await s.ctl.statementReset(DAY)
  await s.ctl.statementHold(DAY)
  assert.deepEqual(await read(s, await fetchWhole(s.provider.statements!, s.cfg, DAY)), [])
  await s.ctl.statementRelease(DAY)
  assert.equal((await read(s, await fetchWhole(s.provider.statements!, s.cfg, DAY))).length, 4)
})

test('Creem\'s own SDK pages the same search, knobbed lines included, and its schemas accept every answer strictly', async (t) => {
  const s = await setup(t)
  await aDay(s)
  await s.ctl.statementUnknownPayment(DAY, { amount: 777 })
  const productId = (await s.products.find('pc_test', 100, 'EUR'))!
  const sdk = new Creem({ apiKey: s.creds.apiKey, serverURL: s.fake.url })
  const pages = await sdk.transactions.search(undefined, undefined, productId, 1, 2)
  const ids: string[] = []
  for await (const page of pages) ids.push(...page.result.items.map((i) => i.id))
  assert.equal(ids.length, 4, 'three of the fake\'s transactions and the unknown one, over two pages')
  const answers = (await s.ctl.requests()).filter((r) => r.path.startsWith('/v1/transactions/search'))
  assert.equal(answers.length, 2)
  for (const r of answers) assert.deepEqual(strictProblems(C.TransactionListEntity$inboundSchema as unknown as ZodLike, r.body), [], r.path)
})
