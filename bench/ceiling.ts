/**
 * The ceiling the API is measured against: a bare node:http server, no framework and no ORM, doing
 * each endpoint's essential SQL through a pg Pool of the same size as Till's, and answering the
 * same JSON. It skips what Till does on top: key authentication, rate limiting, body-schema
 * validation, idempotency keys, request ids and the error model. `x-ceiling-extra: auth` adds, on
 * every request, the statement Till runs for those first two (the key lookup that also claims rate
 * limit tokens, src/store/repos/rate-limits.ts), to price the round trip that Till itself makes
 * only when a key's local bucket runs dry (src/api/plugins/rate-limit.ts).
 *
 * Statements are named (prepared once per connection), as Till's are.
 *
 * - POST /api/v1/checkout: one INSERT of the session row (Till's columns), answered from the values sent.
 * - GET /api/v1/sessions/{id}: one SELECT scoped by (merchant, mode), plus the record once paid.
 * - POST /api/v1/refunds: Till's design done by hand: reserve (lock the record, sum pending refunds,
 *   insert the refund, commit), the mock provider's answer (in memory), settle (lock, update the
 *   refund, recompute the sums, update the record, read the session, append the event and its
 *   deliveries, commit). Fourteen round trips.
 * - With an Idempotency-Key header, the minimal keyed design (Till's statements): the request's
 *   fingerprint (SHA-256 of method, path and body); checkout claims the key and stores its answer in
 *   the command that inserts the session (one statement, one commit); a refund claims the key in
 *   flight in its reservation and stores its answer in its settlement (two more statements, no more
 *   commits). A key that is taken answers 409 here: the bench sends fresh keys.
 *
 * Run as a child process: env DATABASE_URL, POOL_SIZE, MERCHANT_ID, BASE_URL; sends {port} over IPC.
 */
import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { newId } from '../src/domain/ids.js'
import { recordStatus } from '../src/domain/refund-math.js'
import { hashApiKey } from '../src/security/api-keys.js'
import type { Db } from '../src/store/db.js'
import { CLAIM_SQL } from '../src/store/repos/idempotency.js'
import { findKeyClaiming } from '../src/store/repos/rate-limits.js'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE) || 10 })
pool.on('error', () => {})
// Only for the priced rows' key claim, which runs as Till's repository runs it (a named statement on a Drizzle handle).
const keyDb = drizzle(pool) as unknown as Db
const MERCHANT = process.env.MERCHANT_ID!
const BASE_URL = process.env.BASE_URL ?? 'http://localhost:8080'
const MODE = 'test'

const SESSION_COLS = '"id", "merchant_id", "mode", "status", "amount", "currency", "description", "metadata", "success_url", "chosen_provider", "provider_config_id", "expires_at", "created_at", "updated_at"'
const RECORD_COLS = '"id", "session_id", "attempt_id", "merchant_id", "mode", "provider", "provider_config_id", "provider_ref", "provider_data", "amount", "refunded_amount", "currency", "status", "paid_at", "created_at"'
const REFUND_COLS = '"id", "record_id", "merchant_id", "mode", "amount", "status", "provider_ref", "reason", "initiated_by", "idempotency_key", "provider_pending", "failure_reason", "next_check_at", "checks", "created_at", "updated_at"'

const INSERT_SESSION = `insert into "sessions" (${SESSION_COLS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`
const SELECT_SESSION = `select ${SESSION_COLS} from "sessions" where ("sessions"."id" = $1 and "sessions"."merchant_id" = $2 and "sessions"."mode" = $3)`
const SELECT_RECORD_BY_SESSION = `select ${RECORD_COLS} from "records" where "records"."session_id" = $1`
const LOCK_RECORD_SCOPED = `select ${RECORD_COLS} from "records" where ("records"."id" = $1 and "records"."merchant_id" = $2 and "records"."mode" = $3) for update`
const LOCK_RECORD = `select ${RECORD_COLS} from "records" where "records"."id" = $1 for update`
const PENDING_SUM = `select coalesce(sum("amount"), 0)::int as sum, count(*)::int as count from "refunds" where ("refunds"."record_id" = $1 and "refunds"."status" = $2)`
const SUMS = `select coalesce(sum("amount") filter (where "status" = 'succeeded'), 0)::int as refunded, count(*) filter (where "status" = 'pending')::int as pending from "refunds" where "refunds"."record_id" = $1`
const INSERT_REFUND = `insert into "refunds" (${REFUND_COLS}) values ($1, $2, $3, $4, $5, $6, default, $7, default, $8, default, default, $9, default, $10, $11) returning ${REFUND_COLS}`
const SETTLE_REFUND = `update "refunds" set "status" = $1, "provider_ref" = $2, "failure_reason" = $3, "next_check_at" = $4, "updated_at" = $5 where "refunds"."id" = $6 returning ${REFUND_COLS}`
const UPDATE_RECORD = `update "records" set "refunded_amount" = $1, "status" = $2 where "records"."id" = $3 returning ${RECORD_COLS}`
const SELECT_SESSION_BY_ID = `select ${SESSION_COLS} from "sessions" where "sessions"."id" = $1`
const INSERT_SESSION_CLAIMING = `with claim as (${CLAIM_SQL})
  insert into sessions (${SESSION_COLS})
  select $9::text, $10::text, $11::text, $12::text, $13::int, $14::text, $15::text, $16::jsonb, $17::text, $18::text, $19::text, $20::timestamptz, $21::timestamptz, $22::timestamptz
  where exists (select 1 from claim)`
const SAVE_ANSWER = 'update "idempotency_keys" set "response_status" = $1, "response_body" = $2, "locked_until" = null where ("idempotency_keys"."merchant_id" = $3 and "idempotency_keys"."mode" = $4 and "idempotency_keys"."key" = $5)'
const INSERT_EVENT = 'insert into "events" ("id", "merchant_id", "mode", "type", "data", "payload", "created_at") values ($1, $2, $3, $4, $5, $6, $7) returning "id", "merchant_id", "mode", "type", "data", "payload", "created_at"'
const FAN_OUT = `with inserted as (
  insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
  select $1, ep.id, 'pending', $2, $3, $4 from webhook_endpoints ep
  where ep.merchant_id = $5 and ep.mode = $6 and ep.enabled and ep.deleted_at is null and (ep.events is null or $7 = any(ep.events))
  returning 1
) select pg_notify($8, '') from (select count(*) as n from inserted) c where c.n > 0`

type Row = Record<string, any>
/** Named (prepared) statements, as Till's hot path runs them: parsed and planned once per connection. */
const names = new Map<string, string>()
function run(on: pg.Pool | pg.PoolClient, text: string, values: unknown[]) {
  let name = names.get(text)
  if (!name) names.set(text, (name = `ceiling_${names.size}`))
  return on.query({ name, text, values })
}
const iso = (d: Date) => d.toISOString()
const created = (s: Row) => ({ id: s.id, status: s.status, url: `${BASE_URL}/c/${s.id}`, amount: s.amount, currency: s.currency, expiresAt: iso(s.expires_at), createdAt: iso(s.created_at), mode: s.mode })
const recordJson = (r: Row) => ({ id: r.id, sessionId: r.session_id, provider: r.provider, providerRef: r.provider_ref, amount: r.amount, refundedAmount: r.refunded_amount, currency: r.currency, status: r.status, mode: r.mode, paidAt: iso(r.paid_at), createdAt: iso(r.created_at) })

class Fail extends Error {
  constructor(readonly status: number, readonly body: Row) {
    super(body.error)
  }
}

/** An Idempotency-Key's claim: the values of Till's CLAIM_SQL ($1–$8), the answer's status and body filled in by the work. */
interface Claim {
  key: string
  fingerprint: string
  now: Date
}
const claimOf = (req: http.IncomingMessage, raw: string): Claim | null => {
  const key = req.headers['idempotency-key']
  return typeof key === 'string' ? { key, fingerprint: createHash('sha256').update(`${req.method} ${req.url}\n${raw}`).digest('hex'), now: new Date() } : null
}
const claimValues = (c: Claim, answer: string | null) => [MERCHANT, MODE, c.key, c.fingerprint, answer === null ? null : 200, answer, answer === null ? new Date(c.now.getTime() + 60_000) : null, c.now]
const taken = () => new Fail(409, { error: 'idempotency key in use' })

async function checkout(body: Row, claim: Claim | null) {
  if (!Number.isInteger(body.amount) || body.amount < 1 || body.amount > 99_999_999) throw new Fail(400, { error: 'amount: must be an integer' })
  if (typeof body.currency !== 'string') throw new Fail(400, { error: 'currency: required' })
  const now = new Date()
  const values = [
    newId('sess'), MERCHANT, MODE, 'pending', body.amount, body.currency, body.description ?? null, body.metadata ?? {}, body.successUrl ?? null,
    'mock', null, new Date(now.getTime() + 3600_000), now, now,
  ]
  // The answer is made from the row about to be inserted (every column is given), and with a key stored with it.
  const [id, merchantId, mode, status, amount, currency, , , , , , expiresAt, createdAt] = values as [string, string, string, string, number, string, ...unknown[]]
  const answer = created({ id, merchant_id: merchantId, mode, status, amount, currency, expires_at: expiresAt, created_at: createdAt })
  if (!claim) {
    await run(pool, INSERT_SESSION, values)
    return answer
  }
  const { rowCount } = await run(pool, INSERT_SESSION_CLAIMING, [...claimValues(claim, JSON.stringify(answer)), ...values.slice(0, 7), JSON.stringify(values[7]), ...values.slice(8)])
  if (!rowCount) throw taken()
  return answer
}

async function readSession(id: string) {
  const { rows } = await run(pool, SELECT_SESSION, [id, MERCHANT, MODE])
  if (!rows[0]) throw new Fail(404, { error: 'Not found' })
  const s = rows[0]
  const record = s.status === 'paid' || s.status === 'refunded' ? (await run(pool, SELECT_RECORD_BY_SESSION, [s.id])).rows[0] : null
  return { ...created(s), chosenProvider: 'mock', ...(record ? { record: { id: record.id, provider: record.provider, providerRef: record.provider_ref, amount: record.amount, status: record.status, paidAt: iso(record.paid_at) } } : {}) }
}

async function inTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect()
  try {
    await c.query('begin')
    const out = await fn(c)
    await c.query('commit')
    return out
  } catch (e) {
    await c.query('rollback').catch(() => {})
    throw e
  } finally {
    c.release()
  }
}

async function refund(body: Row, claim: Claim | null) {
  const now = new Date()
  const reserved = await inTx(async (c) => {
    if (claim && !(await run(c, CLAIM_SQL, claimValues(claim, null))).rowCount) throw taken()
    const record = (await run(c, LOCK_RECORD_SCOPED, [body.recordId, MERCHANT, MODE])).rows[0]
    if (!record) throw new Fail(404, { error: 'Not found' })
    const pending = (await run(c, PENDING_SUM, [record.id, 'pending'])).rows[0]
    const available = record.amount - record.refunded_amount - pending.sum
    const amount = body.amount ?? available
    if (amount < 1 || amount > available) throw new Fail(400, { error: 'amount exceeds refundable', refundable: Math.max(0, available) })
    const id = newId('ref')
    return (await run(c, INSERT_REFUND, [id, record.id, record.merchant_id, record.mode, amount, 'pending', body.reason ?? null, null, new Date(now.getTime() + 30_000), now, now])).rows[0]
  })
  const providerRef = `mock_ref_${reserved.id.slice(4)}` // the mock provider answers `succeeded` at once
  return inTx(async (c) => {
    const record = (await run(c, LOCK_RECORD, [reserved.record_id])).rows[0]
    const refundRow = (await run(c, SETTLE_REFUND, ['succeeded', providerRef, null, null, new Date(), reserved.id])).rows[0]
    const sums = (await run(c, SUMS, [record.id])).rows[0]
    const status = recordStatus(record.amount, sums.refunded, sums.pending > 0)
    const updated = (await run(c, UPDATE_RECORD, [sums.refunded, status, record.id])).rows[0]
    const session = (await run(c, SELECT_SESSION_BY_ID, [record.session_id])).rows[0]
    const data = {
      refundId: refundRow.id, recordId: updated.id, sessionId: session.id, amount: refundRow.amount, refundedAmount: updated.refunded_amount,
      recordStatus: updated.status, currency: session.currency, status: refundRow.status, reason: refundRow.reason, metadata: session.metadata,
    }
    const eventId = newId('evt')
    const payload = JSON.stringify({ id: eventId, type: 'refund.succeeded', createdAt: iso(now), mode: MODE, data })
    await run(c, INSERT_EVENT, [eventId, updated.merchant_id, MODE, 'refund.succeeded', data, payload, now])
    await run(c, FAN_OUT, [eventId, now, now, now, updated.merchant_id, MODE, 'refund.succeeded', 'till_webhooks'])
    const answer = {
      ...recordJson(updated),
      refund: { id: refundRow.id, amount: refundRow.amount, status: refundRow.status, providerRef: refundRow.provider_ref, reason: refundRow.reason, createdAt: iso(refundRow.created_at) },
    }
    if (claim) await run(c, SAVE_ANSWER, [200, JSON.stringify(answer), MERCHANT, MODE, claim.key])
    return answer
  })
}

async function route(req: http.IncomingMessage, raw: string): Promise<unknown> {
  if (req.headers['x-ceiling-extra'] === 'auth') {
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? ''
    const now = Date.now()
    if (!(await findKeyClaiming(keyDb, hashApiKey(key), now - (now % 1000), 1))) throw new Fail(401, { error: 'invalid API key' })
  }
  const url = req.url ?? ''
  if (req.method === 'POST' && url === '/api/v1/checkout') return checkout(JSON.parse(raw), claimOf(req, raw))
  if (req.method === 'POST' && url === '/api/v1/refunds') return refund(JSON.parse(raw), claimOf(req, raw))
  if (req.method === 'GET' && url.startsWith('/api/v1/sessions/')) return readSession(url.slice('/api/v1/sessions/'.length))
  throw new Fail(404, { error: 'Not found' })
}

const server = http.createServer((req, res) => {
  let raw = ''
  req.setEncoding('utf8')
  req.on('data', (d: string) => (raw += d))
  req.on('end', () => {
    route(req, raw).then(
      (body) => {
        const text = JSON.stringify(body)
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text)
      },
      (e: unknown) => {
        const status = e instanceof Fail ? e.status : 500
        const text = JSON.stringify(e instanceof Fail ? e.body : { error: 'internal error' })
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text)
      },
    )
  })
})
server.keepAliveTimeout = 72_000
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }))
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'stop') server.close(() => void pool.end().then(() => process.exit(0)))
})
process.on('SIGTERM', () => process.exit(0))
