/**
 * Idempotency-Key on every POST (docs/integrate.md#errors-idempotency-and-rate-limits): kept 24 h per (merchant, mode, key) with a
 * fingerprint of the request. Replays answer the stored status and body; 5xx answers are not
 * stored, so a retry runs again (refunds also remember their key, so a retry never refunds twice).
 *
 * Two ways to hold a key. Most POSTs claim it before the work and store the answer after it (two
 * commits of their own). A route with `config.keyWithWork` (checkout, refunds: the hot ones) runs
 * its handler through `answerOnce`, and its service claims the key inside the work's own commit:
 * checkout stores its answer in the very command that inserts the session; a refund claims the key
 * in flight with its reservation and stores its answer with its settlement. Only an answer made
 * without the work (a refusal) is stored on its own, here, when it is sent.
 */
import { hash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { IdempotencyInFlight, IdempotencyMismatch, InvalidField, TillError } from '../../domain/errors.js'
import { outageLog } from '../../outage-log.js'
import type { Deps, KeyWithWork } from '../../services/deps.js'
import {
  claimAnswered, claimKey, findKey, KeyTaken, releaseKey, saveResponse, type IdempotencyRow, type KeyClaim,
} from '../../store/repos/idempotency.js'
import { errorBody } from './errors.js'

const LEASE_MS = 60_000
const JSON_TYPE = 'application/json; charset=utf-8'
/** A request finding its key in flight waits this long for that request's answer (or its release) before a 409. */
export const IN_FLIGHT_WAIT_MS = 2000
const IN_FLIGHT_POLL_MS = 100
/** How often a key's release or answer that the database refused is tried again, until the lease ends. */
const SETTLE_RETRY_MS = 250
const SETTLE_WAIT_MS = 1000

/** A wait that does not keep the process alive. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref())

/** An atomic route's key for one request: what its work did with it. */
interface HeldKey {
  claim: KeyClaim
  /** Committed in flight (a refund's reservation): a 5xx releases it, a refusal is saved into it. */
  held: boolean
  /** Stored with the work, or answered from another request's row: nothing left to store. */
  answered: boolean
  body?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The lease of the key this request claimed before its work, which it alone may release. */
    idempotencyClaimed?: Date
    heldKey?: HeldKey
  }
  interface FastifyContextConfig {
    /** The answer holds a secret shown once (a webhook secret): it is kept for replay sealed, never in plain text. */
    sealReplay?: boolean
    /** The handler runs through `answerOnce` and its service claims the key with its work. */
    keyWithWork?: boolean
  }
}

// A sealed body is a SecretBox string (`v1:…`); a stored JSON body starts with `{` or `[`.
const SEALED = /^v\d+:/
const replayAad = (ctx: { merchantId: string; mode: string }, key: string) => `idempotency:${ctx.merchantId}:${ctx.mode}:${key}`

/** The body with every object's keys sorted: the same request with its keys reordered is the same request. */
export const canonicalJson = (body: unknown) =>
  JSON.stringify(body, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v)

/**
 * What a request answers when its key is another request's (or its own earlier one's): a refusal, or
 * the stored answer. A row gone meanwhile (released by a 5xx) is a request still to be retried.
 */
function verdict(deps: Deps, req: FastifyRequest, key: string, fingerprint: string, row: IdempotencyRow | undefined) {
  if (row && row.fingerprint !== fingerprint) return new IdempotencyMismatch()
  if (!row || row.responseStatus === null) return new IdempotencyInFlight()
  const body = row.responseBody && SEALED.test(row.responseBody) ? deps.box.open(row.responseBody, replayAad(req.ctx, key)) : row.responseBody
  return { status: row.responseStatus, body }
}

const replay = (reply: FastifyReply, answer: { status: number; body: string | null }) =>
  reply.code(answer.status).header('Idempotent-Replayed', 'true').type(JSON_TYPE)

/**
 * Runs an atomic route's work with its key (`keyWithWork`), and sends the answer exactly as the work
 * stored it; a key taken by another request answers as that request's row says.
 */
export async function answerOnce(deps: Deps, req: FastifyRequest, reply: FastifyReply, work: (once?: KeyWithWork) => Promise<unknown>) {
  const held = req.heldKey
  if (!held) return work()
  const once: KeyWithWork = {
    claim: held.claim,
    answer(view) {
      const body = String(reply.serialize(view))
      held.body = body
      const stored = req.routeOptions.config.sealReplay ? deps.box.seal(body, replayAad(req.ctx, held.claim.key)) : body
      return { status: reply.statusCode, body: stored }
    },
    held: () => {
      held.held = true
    },
  }
  const deadline = performance.now() + IN_FLIGHT_WAIT_MS
  for (;;) {
    try {
      await work(once)
      held.answered = true
      return reply.type(JSON_TYPE).send(held.body)
    } catch (e) {
      if (!(e instanceof KeyTaken)) throw e
    }
    // The key is another request's (nothing of this one's work was done): its answer, or once it is
    // released or its lease lapses, this request's own work.
    const v = verdict(deps, req, held.claim.key, held.claim.fingerprint, await findKey(deps.db, req.ctx, held.claim.key))
    if (v instanceof IdempotencyInFlight && performance.now() < deadline) {
      await pause(IN_FLIGHT_POLL_MS)
      continue
    }
    held.answered = true
    if (v instanceof TillError) throw v
    return replay(reply, v).send(v.body)
  }
}

export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  // Before validation, so that a refused body (a 4xx) is remembered and replayed like any answer.
  app.addHook('preValidation', async (req, reply) => {
    if (req.method !== 'POST') return
    const key = req.headers['idempotency-key']
    if (key === undefined) return
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new InvalidField('Idempotency-Key', 'must be 1 to 255 characters')
    }
    const fingerprint = hash('sha256', `${req.method} ${req.url}\n${canonicalJson(req.body ?? null)}`)
    const now = deps.clock()
    req.ctx.idempotencyKey = key
    if (req.routeOptions.config.keyWithWork) {
      const claim = { merchantId: req.ctx.merchantId, mode: req.ctx.mode, key, fingerprint, now, lockedUntil: new Date(now.getTime() + LEASE_MS) }
      req.heldKey = { claim, held: false, answered: false }
      return
    }
    // A key in flight is waited on a little: its request may be about to answer, or (it failed while
    // the database was away) about to release it.
    const deadline = performance.now() + IN_FLIGHT_WAIT_MS
    for (;;) {
      // Set before the claim: a claim whose COMMIT was lost with its connection may be committed all
      // the same, and the 503 then releases it.
      req.idempotencyClaimed = new Date(now.getTime() + LEASE_MS)
      const existing = await claimKey(deps.db, req.ctx, key, fingerprint, now, LEASE_MS)
      if (!existing) return
      req.idempotencyClaimed = undefined
      const v = verdict(deps, req, key, fingerprint, existing)
      if (v instanceof IdempotencyInFlight && performance.now() < deadline) {
        await pause(IN_FLIGHT_POLL_MS)
        continue
      }
      if (v instanceof TillError) throw v
      return replay(reply, v).send(v.body)
    }
  })

  app.addHook('onSend', async (req, reply, payload) => {
    const held = req.heldKey
    if (held) {
      req.heldKey = undefined
      return held.answered ? payload : answerWithoutWork(req, reply, held, payload)
    }
    const lease = req.idempotencyClaimed
    if (!lease) return payload
    req.idempotencyClaimed = undefined
    const key = req.ctx.idempotencyKey!
    const ctx = req.ctx
    if (reply.statusCode >= 500) {
      await settle(() => releaseKey(deps.db, ctx, key, lease), lease)
    } else {
      const body = req.routeOptions.config.sealReplay ? deps.box.seal(String(payload), replayAad(ctx, key)) : String(payload)
      const status = reply.statusCode
      await settle(() => saveResponse(deps.db, ctx, key, status, body), lease)
    }
    return payload
  })

  const outage = outageLog(deps.log)
  /**
   * Releases a key after a 5xx, or stores an answer; when the database refuses (it is away: that is
   * often why the request failed), again and again in the background until the key's lease ends. The
   * answer already made is sent either way, never an error about the key, and waits for the first
   * try at most SETTLE_WAIT_MS (on a frozen database it would wait for the query's timeout). A retry
   * then finds the key released or answered as soon as the database is back, not in flight for the lease.
   */
  async function settle(write: () => Promise<unknown>, lease: Date) {
    const end = performance.now() + (lease.getTime() - deps.clock().getTime())
    const attempt = (): Promise<void> => write().then(
      () => outage.ok('idempotency-key', 'idempotency keys released and answered again'),
      (err) => {
        outage.failed('idempotency-key', err, 'idempotency key not released or answered: trying again in the background')
        if (performance.now() < end) setTimeout(attempt, SETTLE_RETRY_MS).unref()
      })
    await Promise.race([attempt(), pause(SETTLE_WAIT_MS)])
  }

  /**
   * An atomic route's answer its work did not store: a refusal (validation, a business rule) is stored
   * now, a 5xx is not (and releases a claim held in flight); if another request holds the key, the
   * answer becomes what its row says, as it would have been had the key been claimed first.
   */
  async function answerWithoutWork(req: FastifyRequest, reply: FastifyReply, held: HeldKey, payload: unknown) {
    const { claim } = held
    const ctx = req.ctx
    // Released whether or not the work's commit was seen: a connection lost during COMMIT leaves the
    // claim committed (held in flight) though the work failed, and only this lease's row is deleted.
    if (reply.statusCode >= 500) {
      await settle(() => releaseKey(deps.db, ctx, claim.key, claim.lockedUntil), claim.lockedUntil)
      return payload
    }
    const answer = { status: reply.statusCode, body: String(payload) }
    if (held.held) {
      await settle(() => saveResponse(deps.db, ctx, claim.key, answer.status, answer.body), claim.lockedUntil)
      return payload
    }
    try {
      if (await claimAnswered(deps.db, claim, answer)) return payload
      const v = verdict(deps, req, claim.key, claim.fingerprint, await findKey(deps.db, ctx, claim.key))
      if (!(v instanceof TillError)) {
        replay(reply, v)
        return v.body
      }
      reply.code(v.status)
      return reply.serialize(errorBody(v))
    } catch (err) {
      // Sent without being remembered: the same request is refused the same way when retried.
      outage.failed('idempotency-key', err, 'a refusal not remembered for its idempotency key')
    }
    return payload
  }
}
