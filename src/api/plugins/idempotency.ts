/**
 * Idempotency-Key on every POST, over HTTP: the key's life is services/idempotency.ts (its contract
 * is there). This plugin reads the header, hands the request's key to the route (`answerOnce`, for a
 * route whose service claims the key with its work: `config.keyWithWork`) or claims it before the
 * handler, and settles it when the answer is sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { InvalidField, TillError } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { fingerprintOf, idempotencyKeys, keptOnRow, Replayed, type HeldKey, type RequestKey } from '../../services/idempotency.js'
import { errorBody } from './errors.js'

const JSON_TYPE = 'application/json; charset=utf-8'

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: HeldKey | null
  }
  interface FastifyContextConfig {
    /** The answer holds a secret shown once (a webhook secret): it is kept for replay sealed, never in plain text. */
    sealReplay?: boolean
    /** The handler runs through `answerOnce` and its service claims the key with its work. */
    keyWithWork?: boolean
  }
}

const replay = (reply: FastifyReply, r: Replayed) => reply.code(r.status).header('Idempotent-Replayed', 'true').type(JSON_TYPE)

/**
 * Runs a `keyWithWork` route's service with the request's key, and sends the answer exactly as its
 * work stored it; a key another request holds answers as that request's row says. The bytes are
 * returned, not sent here: a handler returning `reply` would have Fastify wait for the response's end.
 */
export async function answerOnce<V>(deps: Deps, req: FastifyRequest, reply: FastifyReply, work: (key: RequestKey) => Promise<V>) {
  const held = req.idempotency
  if (!held) return work(keptOnRow(null, deps.clock))
  try {
    await work(held)
    reply.type(JSON_TYPE)
    return held.sent
  } catch (e) {
    if (e instanceof Replayed) return replay(reply, e).send(e.body)
    throw e
  }
}

export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  const keys = idempotencyKeys(deps)
  // Declared on every request, so that a keyed one keeps the request object's shape (V8's hidden class).
  app.decorateRequest('idempotency', null)
  // Before validation, so that a refused body (a 4xx) is remembered and replayed like any answer.
  app.addHook('preValidation', async (req, reply) => {
    if (req.method !== 'POST') return
    const key = req.headers['idempotency-key']
    if (key === undefined) return
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new InvalidField('Idempotency-Key', 'must be 1 to 255 characters')
    }
    req.ctx.idempotencyKey = key
    const config = req.routeOptions.config
    const held = keys.forRequest({
      scope: req.ctx, key, fingerprint: fingerprintOf(req.method, req.url, req.body), sealed: !!config.sealReplay,
      serialize: (view) => ({ status: reply.statusCode, body: String(reply.serialize(view)) }),
    })
    req.idempotency = held
    if (config.keyWithWork) return
    // A key in flight is waited on a little: its request may be about to answer, or (it failed while
    // the database was away) about to release it.
    const v = await held.claimFirst()
    if (v instanceof TillError) throw v
    if (v) return replay(reply, v).send(v.body)
  })

  // Not async: most answers have nothing to settle (no key, or a work that stored its answer), and skip the promise.
  app.addHook('onSend', (req, reply, payload, done) => {
    const held = req.idempotency
    if (!held) return done(null, payload)
    req.idempotency = null
    if (held.answered) return done(null, payload)
    held.finish(reply.statusCode, String(payload)).then((v) => {
      if (!v) return payload
      if (v instanceof Replayed) {
        replay(reply, v)
        return v.body
      }
      reply.code(v.status)
      return reply.serialize(errorBody(v))
    }).then((out) => done(null, out), done)
  })
}
