/**
 * Idempotency-Key on every POST (DESIGN.md §10): kept 24 h per (merchant, mode, key) with a
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
    const fingerprint = createHash('sha256').update(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`).digest('hex')
    const existing = await claimKey(deps.db, req.ctx, key, fingerprint, deps.clock(), LEASE_MS)
    if (!existing) {
      req.ctx.idempotencyKey = key
      req.idempotencyClaimed = true
      return
    }
    if (existing.fingerprint !== fingerprint) throw new IdempotencyMismatch()
    if (existing.responseStatus === null) throw new IdempotencyInFlight()
    return reply
      .code(existing.responseStatus)
      .header('Idempotent-Replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(existing.responseBody)
  })

  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.idempotencyClaimed) return payload
    req.idempotencyClaimed = false
    if (reply.statusCode >= 500) await releaseKey(deps.db, req.ctx, req.ctx.idempotencyKey!)
    else await saveResponse(deps.db, req.ctx, req.ctx.idempotencyKey!, reply.statusCode, String(payload))
    return payload
  })
}
