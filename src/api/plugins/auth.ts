/** Secret-key authentication for /api/v1: Authorization: Bearer sk_… → (merchant, mode), with the key's rate limit. */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { TillError } from '../../domain/errors.js'
import type { Deps, RequestContext } from '../../services/deps.js'
import { apiKeyMode, hashApiKey } from '../../security/api-keys.js'
import { findKeyClaiming } from '../../store/repos/rate-limits.js'
import type { Claim } from './rate-limit.js'

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext
  }
}

export const bearer = (req: FastifyRequest): string | null => {
  const h = req.headers.authorization
  if (!h) return null
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
  return m ? m[1] : ''
}

export function registerKeyAuth(app: FastifyInstance, deps: Deps) {
  const claim: Claim = (hash, window, tokens) => findKeyClaiming(deps.db, hash, window, tokens)
  app.decorateRequest('ctx', null as unknown as RequestContext)
  app.addHook('onRequest', async (req) => {
    const key = bearer(req)
    if (key === null) throw new TillError(401, 'missing API key: send Authorization: Bearer <secret key>')
    // Malformed keys are refused without a lookup; a live key spends a token of its rate limit (rate-limit.ts).
    const found = key && apiKeyMode(key) ? await deps.apiKeys.admit(hashApiKey(key), deps.clock(), deps.config.rateLimitPerSecond, claim) : null
    if (!found) throw new TillError(401, 'invalid API key')
    req.ctx = { merchantId: found.merchantId, mode: found.mode, idempotencyKey: null }
  })
}

const digest = (s: string) => createHash('sha256').update(s).digest()

/** ADMIN_TOKEN check, constant-time over digests so length leaks nothing either. */
export function registerAdminAuth(app: FastifyInstance, token: string) {
  const expected = digest(token)
  app.addHook('onRequest', async (req) => {
    const given = bearer(req)
    if (!given || !timingSafeEqual(digest(given), expected)) throw new TillError(401, 'invalid admin token')
  })
}
