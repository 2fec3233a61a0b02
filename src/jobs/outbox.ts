/**
 * Webhook delivery from the outbox. Due deliveries are leased in one short statement (SKIP LOCKED,
 * so instances never take the same row), POSTed outside any transaction, and their attempts recorded
 * in a second statement fenced by the lease token. Deliveries run concurrently, at most a few per
 * endpoint, so a slow or dead endpoint never holds up the others.
 */
import { randomBytes } from 'node:crypto'
import {
  DELIVERY_TIMEOUT_MS, EVENT_ID_HEADER, EVENT_TYPE_HEADER, isDelivered, MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter,
  deliveryBody, SIGNATURE_HEADER, signatureHeader, USER_AGENT,
} from '../domain/webhooks.js'
import type { Deps } from '../services/deps.js'
import { signingSecrets } from '../services/webhook-endpoints.js'
import { claimDue, recordAttempts, type AttemptOutcome, type Claimed, type Recorded } from '../store/repos/deliveries.js'
import { createSender, type Sender, type SenderOptions } from './webhook-http.js'

export interface OutboxOptions {
  /** Deliveries in flight in this process. */
  maxInFlight?: number
  /** Deliveries in flight to one endpoint, over all instances. */
  perEndpoint?: number
  timeoutMs?: number
  /** How long a claimed delivery is reserved; past it another worker may take it over. */
  leaseMs?: number
  random?: () => number
  tls?: SenderOptions['tls']
  /** Called after each attempt is recorded (tests, metrics). */
  onAttempt?: (r: AttemptResult) => void
}

export interface AttemptResult extends AttemptOutcome {
  eventId: string
  endpointId: string
  status: Recorded['status']
  nextAttemptAt: Date | null
}

const DEFAULTS = { maxInFlight: 64, perEndpoint: 8, timeoutMs: DELIVERY_TIMEOUT_MS, leaseMs: 60_000 }
const OUTCOME = { delivered: 'delivered', pending: 'retry', failed: 'failed' } as const
/** Attempts recorded in one statement at most. */
const RECORD_BATCH = 500

/** One POST and what it means for the schedule. Never throws: whatever goes wrong is the attempt's error. */
async function attempt(deps: Deps, sender: Sender, c: Claimed, random?: () => number): Promise<Recorded> {
  const attemptedAt = deps.clock()
  let sent: Awaited<ReturnType<Sender['send']>>
  try {
    const body = deliveryBody(c.payload, attemptedAt)
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(deps, { ...c, id: c.endpointId }, attemptedAt), body),
      [EVENT_ID_HEADER]: c.eventId,
      [EVENT_TYPE_HEADER]: c.eventType,
    }
    sent = await sender.send(c.mode, c.url, headers, body)
  } catch (e) {
    sent = { statusCode: null, latencyMs: 0, responseBody: null, error: (e as Error).message, retryAfter: undefined }
  }
  const now = deps.clock()
  const ok = isDelivered(sent.statusCode)
  const next = ok ? null : nextAttemptAt(now, c.attempts + 1, parseRetryAfter(sent.retryAfter, now), random)
  return {
    claimed: c,
    attempt: { attemptedAt, statusCode: sent.statusCode, latencyMs: sent.latencyMs, responseBody: sent.responseBody, error: sent.error },
    status: ok ? 'delivered' : next ? 'pending' : 'failed',
    nextAttemptAt: next,
  }
}

/**
 * Records attempts like a group commit: the first waits for nobody, and whatever finishes while a
 * statement runs goes into the next one, so a busy worker pays one commit per batch, not per attempt.
 */
function createRecorder(deps: Deps) {
  let queue: { item: Recorded; resolve(): void; reject(e: unknown): void }[] = []
  let flushing = false
  async function flush() {
    flushing = true
    while (queue.length) {
      const batch = queue.slice(0, RECORD_BATCH)
      queue = queue.slice(RECORD_BATCH)
      try {
        await recordAttempts(deps.db, batch.map((b) => b.item), deps.clock())
        for (const b of batch) b.resolve()
      } catch (err) {
        for (const b of batch) b.reject(err)
      }
    }
    flushing = false
  }
  return (item: Recorded) => new Promise<void>((resolve, reject) => {
    queue.push({ item, resolve, reject })
    if (!flushing) void flush()
  })
}

function log(deps: Deps, r: Recorded) {
  const at = { eventId: r.claimed.eventId, endpointId: r.claimed.endpointId }
  if (r.status === 'failed') deps.log.warn({ ...at, attempts: MAX_ATTEMPTS }, 'webhook delivery failed for good')
  else if (r.status === 'pending') deps.log.info({ ...at, statusCode: r.attempt.statusCode, error: r.attempt.error, nextAttemptAt: r.nextAttemptAt }, 'webhook attempt failed')
}

export function createOutbox(deps: Deps, options: OutboxOptions = {}) {
  const o = { ...DEFAULTS, ...options }
  const sender = createSender({ allowPrivate: deps.config.webhookAllowPrivate, timeoutMs: o.timeoutMs, tls: o.tls })
  const record = createRecorder(deps)
  const inFlight = new Set<Promise<AttemptResult | null>>()
  // Refill once a quarter of the slots is free, not after every single attempt: fewer, larger claims.
  const refillAt = Math.max(1, Math.floor(o.maxInFlight / 4))
  let stopped = false

  async function claim(limit: number) {
    if (limit <= 0) return []
    const now = deps.clock()
    return claimDue(deps.db, { now, leaseUntil: new Date(now.getTime() + o.leaseMs), token: randomBytes(12).toString('hex'), limit, perEndpoint: o.perEndpoint })
  }

  /** `chain`: the continuous worker refills freed slots; a one-off run attempts only what it claimed. */
  function start(c: Claimed, chain: boolean) {
    const p: Promise<AttemptResult | null> = attempt(deps, sender, c, o.random)
      .then(async (r) => {
        await record(r)
        log(deps, r)
        deps.metrics.webhookDeliveries.inc({ outcome: OUTCOME[r.status] })
        const result = { ...r.attempt, eventId: c.eventId, endpointId: c.endpointId, status: r.status, nextAttemptAt: r.nextAttemptAt }
        o.onAttempt?.(result)
        return result
      })
      .catch((err) => {
        // Not recorded (the database went away): the lease lapses and the delivery is tried again.
        deps.log.warn({ err, eventId: c.eventId, endpointId: c.endpointId }, 'webhook attempt not recorded')
        return null
      })
      .finally(() => {
        inFlight.delete(p)
        if (chain && !stopped && o.maxInFlight - inFlight.size >= refillAt) {
          pump().catch((err) => deps.log.warn({ err }, 'webhook claim failed; the timer tries again'))
        }
      })
    inFlight.add(p)
    return p
  }

  // One claim at a time per process; a request for another while one runs is folded into a rerun.
  let pumping: Promise<number> | null = null
  let rerun = false
  async function pumpOnce(): Promise<number> {
    let started = 0
    do {
      rerun = false
      const rows = await claim(o.maxInFlight - inFlight.size)
      for (const c of rows) start(c, true)
      started += rows.length
    } while (rerun && !stopped)
    return started
  }

  /** Fills the free slots with due deliveries and returns without waiting for them. */
  function pump(): Promise<number> {
    if (stopped) return Promise.resolve(0)
    if (pumping) {
      rerun = true
      return pumping
    }
    pumping = pumpOnce().finally(() => (pumping = null))
    return pumping
  }

  return {
    pump,
    /** Claims up to `limit` due deliveries, attempts them all concurrently and waits for every one. */
    async runOnce(limit = 100): Promise<AttemptResult[]> {
      const results = await Promise.all((await claim(limit)).map((c) => start(c, false)))
      return results.filter((r): r is AttemptResult => r !== null)
    },
    async stop() {
      stopped = true
      await pumping?.catch(() => {})
      await Promise.allSettled([...inFlight])
      await sender.close()
    },
  }
}

/** Tests and tools: attempt what is due now, once, and wait for the results. */
export async function deliverDue(deps: Deps, options: OutboxOptions & { limit?: number } = {}): Promise<AttemptResult[]> {
  const outbox = createOutbox(deps, options)
  try {
    return await outbox.runOnce(options.limit)
  } finally {
    await outbox.stop()
  }
}
