/**
 * Control-route plumbing under a fake's /__fake/<provider> prefix, and the knobs every fake has:
 * delivery mode, clock skew, forced errors, the job queue's tick, and what was sent and asked.
 * JSON in, JSON out. Knobs that touch a provider's own objects stay in its control.ts.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { NOTIFY_MODES, type NotifyKnob } from './delivery.js'
import type { ForcedError } from './forced-errors.js'
import type { JobQueue } from './jobs.js'

export type Body = Record<string, any>
export const bodyOf = (b: unknown) => (b ?? {}) as Body
export const bad = (reply: FastifyReply, status: number, error: string) => reply.code(status).send({ error })

export interface KnobbedStore<E extends ForcedError> {
  knobs: { clockSkewSec: number; notify: NotifyKnob; errors: E[] }
  jobs: JobQueue
  deliveries: unknown[]
  requests: unknown[]
}

export interface ErrorKnob<E extends ForcedError> {
  /** The route names the fake's API handlers use, and '*'. */
  routes: readonly string[]
  read: (b: Body) => E
}

export function registerSharedKnobs<E extends ForcedError>(app: FastifyInstance, prefix: string, store: KnobbedStore<E>, notifier: { flushHeld(): Promise<void> }, errors: ErrorKnob<E>) {
  app.post(`${prefix}/notifications`, async (req, reply) => {
    const b = bodyOf(req.body)
    if (!NOTIFY_MODES.includes(b.mode)) return bad(reply, 400, `mode must be one of ${NOTIFY_MODES.join(', ')}`)
    store.knobs.notify = { mode: b.mode, delayMs: Number(b.delayMs ?? 0), count: Number(b.count ?? 2), persist: b.persist === true }
    return { ok: true, notify: store.knobs.notify }
  })

  app.post(`${prefix}/clock-skew`, async (req) => {
    store.knobs.clockSkewSec = Number(bodyOf(req.body).seconds ?? 0)
    return { ok: true, clockSkewSec: store.knobs.clockSkewSec }
  })

  app.post(`${prefix}/errors`, async (req, reply) => {
    const b = bodyOf(req.body)
    if (!errors.routes.includes(b.route)) return bad(reply, 400, `route must be one of ${errors.routes.join(', ')}`)
    store.knobs.errors.push(errors.read(b))
    return { ok: true }
  })

  app.delete(`${prefix}/errors`, async () => {
    store.knobs.errors.length = 0
    return { ok: true }
  })

  app.post(`${prefix}/tick`, async () => ({ ran: await store.jobs.runDue(), pending: store.jobs.pending() }))
  app.post(`${prefix}/flush-held`, async () => {
    await notifier.flushHeld()
    return { ok: true }
  })

  app.get(`${prefix}/deliveries`, async () => ({ deliveries: store.deliveries }))
  app.get(`${prefix}/requests`, async () => ({ requests: store.requests }))
}
