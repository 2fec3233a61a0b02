/**
 * Idempotency-Key on every POST (docs/integrate.md#errors-idempotency-and-rate-limits): kept 24 h per (merchant, mode, key) with a
 * fingerprint of the request. Replays answer the stored status and body; 5xx answers are not
 * stored, so a retry runs again (refunds also remember their key, so a retry never refunds twice).
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { IdempotencyInFlight, IdempotencyMismatch, InvalidField } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { claimKey, releaseKey, saveResponse } from '../../store/repos/idempotency.js'

const LEASE_MS = 60_000

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaimed?: boolean
  }
  interface FastifyContextConfig {
    /** The answer holds a secret shown once (a webhook secret): it is kept for replay sealed, never in plain text. */
    sealReplay?: boolean
  }
}

// A sealed body is a SecretBox string (`v1:…`); a stored JSON body starts with `{` or `[`.
const SEALED = /^v\d+:/
const replayAad = (ctx: { merchantId: string; mode: string }, key: string) => `idempotency:${ctx.merchantId}:${ctx.mode}:${key}`

/** The body with every object's keys sorted: the same request with its keys reordered is the same request. */
export const canonicalJson = (body: unknown) =>
  JSON.stringify(body, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v)

export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  // Before validation, so that a refused body (a 4xx) is remembered and replayed like any answer.
  app.addHook('preValidation', async (req, reply) => {
    if (req.method !== 'POST') return
    const key = req.headers['idempotency-key']
    if (key === undefined) return
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new InvalidField('Idempotency-Key', 'must be 1 to 255 characters')
    }
    const fingerprint = createHash('sha256').update(`${req.method} ${req.url}\n${canonicalJson(req.body ?? null)}`).digest('hex')
    const existing = await claimKey(deps.db, req.ctx, key, fingerprint, deps.clock(), LEASE_MS)
    if (!existing) {
      req.ctx.idempotencyKey = key
      req.idempotencyClaimed = true
      return
    }
    if (existing.fingerprint !== fingerprint) throw new IdempotencyMismatch()
    if (existing.responseStatus === null) throw new IdempotencyInFlight()
    const body = existing.responseBody && SEALED.test(existing.responseBody) ? deps.box.open(existing.responseBody, replayAad(req.ctx, key)) : existing.responseBody
    return reply
      .code(existing.responseStatus)
      .header('Idempotent-Replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(body)
  })

  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.idempotencyClaimed) return payload
    req.idempotencyClaimed = false
    if (reply.statusCode >= 500) await releaseKey(deps.db, req.ctx, req.ctx.idempotencyKey!)
    else {
      const key = req.ctx.idempotencyKey!
      const body = req.routeOptions.config.sealReplay ? deps.box.seal(String(payload), replayAad(req.ctx, key)) : String(payload)
      await saveResponse(deps.db, req.ctx, key, reply.statusCode, body)
    }
    return payload
  })
}
