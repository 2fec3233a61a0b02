/**
 * Secret-key authentication for /api/v1: `Authorization: Bearer sk_…`, or HTTP Basic with the key as
 * user name (`curl -u sk_test_…:`, as Stripe takes it) → (merchant, mode), with the key's rate limit.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Unauthorized } from '../../domain/errors.js'
import type { Deps, RequestContext } from '../../services/deps.js'
import { apiKeyMode, hashApiKey } from '../../security/api-keys.js'
import type { Claim } from '../../security/rate-limit.js'
import { findKeyClaiming } from '../../store/repos/rate-limits.js'

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

/** The secret key of a request: Bearer, or Basic's user name (the password, if any, is ignored). Null without the header. */
export const apiKeyOf = (req: FastifyRequest): string | null => {
  const h = req.headers.authorization
  if (!h) return null
  const basic = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(h)
  if (!basic) return bearer(req)
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? decoded : decoded.slice(0, colon)
}

export function registerKeyAuth(app: FastifyInstance, deps: Deps) {
  const claim: Claim = (hash, window, tokens) => findKeyClaiming(deps.db, hash, window, tokens)
  app.decorateRequest('ctx', null as unknown as RequestContext)
  app.addHook('onRequest', async (req) => {
    const key = apiKeyOf(req)
    if (key === null) throw new Unauthorized('missing API key: send Authorization: Bearer <secret key>', 'missing_api_key')
    // Malformed keys are refused without a lookup; a live key spends a token of its rate limit (rate-limit.ts).
    const found = key && apiKeyMode(key) ? await deps.apiKeys.admit(hashApiKey(key), deps.clock(), deps.config.rateLimitPerSecond, claim) : null
    if (!found) throw new Unauthorized('invalid API key')
    req.ctx = { merchantId: found.merchantId, mode: found.mode, idempotencyKey: null }
  })
}

const digest = (s: string) => createHash('sha256').update(s).digest()

/** ADMIN_TOKEN check, constant-time over digests so length leaks nothing either. */
export function registerAdminAuth(app: FastifyInstance, token: string) {
  const expected = digest(token)
  app.addHook('onRequest', async (req) => {
    const given = bearer(req)
    if (!given || !timingSafeEqual(digest(given), expected)) throw new Unauthorized('invalid admin token')
  })
}
