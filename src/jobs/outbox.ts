/**
 * Webhook delivery from the outbox. Due deliveries are leased (SKIP LOCKED, so instances never take
 * the same row), POSTed outside any transaction, and their attempts recorded fenced by the lease
 * token, in the statement that leases the next ones (one round trip per batch). Deliveries run
 * concurrently, at most a few per endpoint, so a slow or dead endpoint never holds up the others.
 */
import { randomBytes } from 'node:crypto'
import {
  DELIVERY_TIMEOUT_MS, EVENT_ID_HEADER, EVENT_TYPE_HEADER, isDelivered, MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter,
  deliveryBody, SIGNATURE_HEADER, signatureHeader, USER_AGENT,
} from '../domain/webhooks.js'
import type { Deps } from '../services/deps.js'
import { signingSecrets } from '../services/webhook-endpoints.js'
import { claimDue, recordAndClaim, type AttemptOutcome, type Claimed, type Recorded } from '../store/repos/deliveries.js'
import { traceHeaders } from '../tracing/tracer.js'
import { traceDelivery } from '../tracing/webhooks.js'
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
  /** Resolves a webhook host for the SSRF check (tests); the address checked is the one dialled. */
  lookup?: SenderOptions['lookup']
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

/**
 * The worker's view of Deps with endpoint secrets opened once per ciphertext and AAD, not once per
 * delivery (an AES-GCM open per attempt showed in the profile). A rotation stores a new ciphertext,
 * so a cached entry never outlives its secret; the cache is cleared when it grows past a bound.
 */
function withSecretCache(deps: Deps): Deps {
  const opened = new Map<string, string>()
  const box = Object.create(deps.box) as Deps['box']
  box.open = (sealed: string, aad: string) => {
    const key = `${aad}\n${sealed}`
    let plain = opened.get(key)
    if (plain === undefined) {
      if (opened.size >= 10_000) opened.clear()
      plain = deps.box.open(sealed, aad)
      opened.set(key, plain)
    }
    return plain
  }
  return { ...deps, box }
}

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
      ...traceHeaders(),
    }
    sent = await sender.send(c.url, headers, body)
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

function log(deps: Deps, r: Recorded) {
  const at = { eventId: r.claimed.eventId, endpointId: r.claimed.endpointId }
  if (r.status === 'failed') deps.log.warn({ ...at, attempts: MAX_ATTEMPTS }, 'webhook delivery failed for good')
  else if (r.status === 'pending') deps.log.info({ ...at, statusCode: r.attempt.statusCode, error: r.attempt.error, nextAttemptAt: r.nextAttemptAt }, 'webhook attempt failed')
}

export function createOutbox(deps: Deps, options: OutboxOptions = {}) {
  const o = { ...DEFAULTS, ...options }
  const sender = createSender({ allowPrivate: deps.config.webhookAllowPrivate, timeoutMs: o.timeoutMs, tls: o.tls, lookup: o.lookup, log: (detail, message) => deps.log.warn(detail, `webhook ${message}`) })
  const signing = withSecretCache(deps)
  const disable = { afterMs: deps.config.webhookDisableAfterMs, minFailures: deps.config.webhookDisableMinFailures }
  const inFlight = new Set<Promise<AttemptResult | null>>()
  /** Deliveries leased by this process and not yet recorded: what maxInFlight bounds. */
  let held = 0
  /** Finished attempts waiting for the next statement. */
  let queue: { item: Recorded; resolve(): void; reject(e: unknown): void }[] = []
  /** pump() callers waiting for the next claim. */
  let waiters: { resolve(n: number): void; reject(e: unknown): void }[] = []
  /** Set by pump(): the continuous worker refills the slots each statement frees; a one-off run does not. */
  let continuous = false
  let stopped = false

  const lease = (now: Date, limit: number) => ({ leaseUntil: new Date(now.getTime() + o.leaseMs), token: randomBytes(12).toString('hex'), limit, perEndpoint: o.perEndpoint })

  /**
   * One statement: records the finished attempts (up to a batch) and, when asked, leases due work
   * for the slots free once they are recorded. Like a group commit, whatever finishes while it runs
   * goes into the next one, so a busy worker pays one round trip per batch, not two per attempt.
   */
  async function cycle(): Promise<void> {
    const batch = queue.splice(0, RECORD_BATCH)
    const asked = waiters
    waiters = []
    const free = o.maxInFlight - held + batch.length
    const claim = !stopped && (asked.length > 0 || continuous) && free > 0
    if (!batch.length && !claim) return asked.forEach((w) => w.resolve(0))
    const now = deps.clock()
    let rows: Claimed[]
    try {
      rows = await recordAndClaim(deps.db, batch.map((b) => b.item), now, claim ? lease(now, free) : undefined, disable)
    } catch (err) {
      // Not recorded (the database went away): the leases lapse and the deliveries are tried again.
      held -= batch.length
      for (const b of batch) b.reject(err)
      for (const w of asked) w.reject(err)
      return
    }
    held -= batch.length
    for (const b of batch) b.resolve()
    for (const c of rows) start(c)
    for (const w of asked) w.resolve(rows.length)
  }

  // One statement at a time per process; requests while one runs are folded into the next.
  let driving = false
  async function drive() {
    if (driving) return
    driving = true
    try {
      while (queue.length || waiters.length) await cycle()
    } finally {
      driving = false
    }
  }

  const record = (item: Recorded) => new Promise<void>((resolve, reject) => {
    queue.push({ item, resolve, reject })
    void drive()
  })

  function start(c: Claimed) {
    held++
    const p: Promise<AttemptResult | null> = traceDelivery(c, () => attempt(signing, sender, c, o.random))
      .then(async (r) => {
        await record(r)
        log(deps, r)
        deps.metrics.webhookDeliveries.inc({ outcome: OUTCOME[r.status] })
        const result = { ...r.attempt, eventId: c.eventId, endpointId: c.endpointId, status: r.status, nextAttemptAt: r.nextAttemptAt }
        o.onAttempt?.(result)
        return result
      })
      .catch((err) => {
        deps.log.warn({ err, eventId: c.eventId, endpointId: c.endpointId }, 'webhook attempt not recorded')
        return null
      })
      .finally(() => inFlight.delete(p))
    inFlight.add(p)
    return p
  }

  return {
    /**
     * Fills the free slots with due deliveries and returns without waiting for them; from then on
     * each statement that records finished attempts also refills the slots they free.
     */
    pump(): Promise<number> {
      if (stopped) return Promise.resolve(0)
      continuous = true
      const p = new Promise<number>((resolve, reject) => waiters.push({ resolve, reject }))
      void drive()
      return p
    },
    /** Claims up to `limit` due deliveries, attempts them all concurrently and waits for every one. */
    async runOnce(limit = 100): Promise<AttemptResult[]> {
      const now = deps.clock()
      const claimed = await claimDue(deps.db, { now, ...lease(now, limit) })
      const results = await Promise.all(claimed.map((c) => start(c)))
      return results.filter((r): r is AttemptResult => r !== null)
    },
    async stop() {
      stopped = true
      // Attempts in flight finish and are recorded (their statements claim nothing more).
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
