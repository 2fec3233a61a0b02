/**
 * An Idempotency-Key's whole life (docs/integrate.md#errors-idempotency-and-rate-limits). The contract:
 * - A key is kept 24 h per (merchant, mode, key) with a fingerprint of its request; the key used for
 *   another request is 409 `idempotency_mismatch`.
 * - The first request claims it. The same request meanwhile waits up to IN_FLIGHT_WAIT_MS for that
 *   answer (or its release), then is 409 `idempotency_in_flight`; a claim whose lease lapsed without
 *   an answer (its process died) is taken over by the same request.
 * - Every answer below 500 is stored and replayed byte for byte (`Idempotent-Replayed: true`); a 5xx
 *   releases the key so that a retry runs again (retried in the background while the database refuses).
 * - Work committed before its answer (a refund's reservation) is found again by the key on its own
 *   row for 24 h, even after the key was released: a retry never refunds twice.
 * - The key costs no commit of its own: a service is handed a `RequestKey` and runs its work through
 *   `once`; the work puts the claim into its own statement or transaction and never sees the answer's bytes.
 */
import { hash } from 'node:crypto'
import { canonicalJson } from '../domain/canonical-json.js'
import { IdempotencyInFlight, IdempotencyMismatch, TillError } from '../domain/errors.js'
import { outageLog } from '../outage-log.js'
import type { Executor } from '../store/db.js'
import {
  answerKey, claimKey, findKey, KeyTaken, purgeKeys, releaseKey, saveResponse, type IdempotencyRow, type KeyAnswer, type KeyClaim,
} from '../store/repos/idempotency.js'
import type { Scope } from '../store/repos/scope.js'
import type { Deps } from './deps.js'

const LEASE_MS = 60_000
/** A request finding its key in flight waits this long for that request's answer (or its release) before a 409. */
export const IN_FLIGHT_WAIT_MS = 2000
const IN_FLIGHT_POLL_MS = 100
/** How often a key's release or answer that the database refused is tried again, until the lease ends. */
const SETTLE_RETRY_MS = 250
const SETTLE_WAIT_MS = 1000
const KEY_RETENTION_MS = 24 * 3600_000

/** A wait that does not keep the process alive. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref())

/** The request: the same with its body's keys reordered is the same request. */
export const fingerprintOf = (method: string, url: string, body: unknown) => hash('sha256', `${method} ${url}\n${canonicalJson(body)}`)

export type { KeyAnswer }

/** A stored answer, sent again as it was: thrown out of `once` (and answered by `claimFirst`) when the key's request already answered. */
export class Replayed extends Error {
  constructor(readonly status: number, readonly body: string | null) {
    super('idempotent replay')
  }
}

/** What the HTTP layer tells about the request whose key this is. */
export interface KeyRequest {
  scope: Scope
  key: string
  fingerprint: string
  /** The answer holds a secret shown once (a webhook secret): it is kept sealed, never in plain text. */
  sealed: boolean
  /** The answer as it will be sent: its status and bytes (serialized once: the same bytes stored and sent). */
  serialize(view: unknown): { status: number; body: string }
}

/** What an earlier use of the key made (kept 24 h), and what the work reads in the same statement (`also`). */
export interface Kept<T, A> {
  earlier: T | null
  also: A
}

/** Rows a work that commits before its answer finds again by its key (a refund's), each lookup with the work's own read. */
export interface KeptRows<T extends { createdAt: Date }, A> {
  /** Claims the key in flight and finds the row, in one statement; throws KeyTaken when the key is another request's. */
  claiming(tx: Executor, claim: KeyClaim): Promise<Kept<T, A>>
  /** Finds the row alone (a key kept on the work's row only), or with no key only reads `also`. */
  byKey(tx: Executor, key: string | null): Promise<Kept<T, A>>
  /** The row's key is forgotten: older than the retention, its key is a new request now. */
  forget(tx: Executor, row: T): Promise<unknown>
}

/** What a work is given: the key's part in the work's own statements. */
export interface KeyInWork {
  /** The key's text, kept on the work's own row (a refund's), or null without a key. */
  readonly key: string | null
  /** The claim to put in the statement that is the whole work, the answer `view` stored with it; null without a key to claim. */
  claimAnswered(view: unknown): KeyClaim | null
  /**
   * A work committed before its answer: in `tx`, claims the key in flight (its answer stored by
   * `answering` or `answer`, or by `once` when the work returns) and returns what an earlier use of
   * the key made, if kept (24 h), even after its key was released.
   */
  reserve<T extends { createdAt: Date }, A>(tx: Executor, rows: KeptRows<T, A>): Promise<Kept<T, A>>
  /**
   * The answer `view` of a key claimed in flight, to store in the last statement of the work's own
   * transaction (store/repos/events.ts); null without a key to answer. The work returns this same view.
   */
  answering(view: unknown): KeyAnswer | null
  /** Stores the answer of a key claimed in flight in the work's own transaction, as a statement of its own. */
  answer(ex: Executor, view: unknown): Promise<void>
}

/** The key as a service holds it: one method, given its work. */
export interface RequestKey {
  once<V>(work: (key: KeyInWork) => Promise<V>): Promise<V>
}

/** A work whose key, if any, is kept only on the work's own row (the console's refunds), or none at all. */
export function keptOnRow(key: string | null, clock: () => Date): RequestKey {
  const inWork: KeyInWork = {
    key,
    claimAnswered: () => null,
    async reserve(tx, rows) {
      return keptFor(await rows.byKey(tx, key), tx, rows, clock())
    },
    answering: () => null,
    async answer() {},
  }
  return { once: (work) => work(inWork) }
}

/** The hourly job (jobs/runner.ts): keys past their retention go. */
export const purgeExpiredKeys = (deps: Deps) => purgeKeys(deps.db, new Date(deps.clock().getTime() - KEY_RETENTION_MS))

/** A key's earlier work is the same request for KEY_RETENTION_MS; after that the key is a new request and only its newest use is remembered. */
async function keptFor<T extends { createdAt: Date }, A>(kept: Kept<T, A>, tx: Executor, rows: KeptRows<T, A>, now: Date): Promise<Kept<T, A>> {
  const { earlier } = kept
  if (!earlier || now.getTime() - earlier.createdAt.getTime() < KEY_RETENTION_MS) return kept
  await rows.forget(tx, earlier)
  return { earlier: null, also: kept.also }
}

/** The idempotency keys of one process: its requests' keys, and its one log of keys the database would not settle. */
export function idempotencyKeys(deps: Deps) {
  const outage = outageLog(deps.log)
  const aad = (s: Scope, key: string) => `idempotency:${s.merchantId}:${s.mode}:${key}`
  const sealedBody = /^v\d+:/ // a SecretBox string; a stored JSON body starts with `{` or `[`

  /**
   * What a request answers when its key is another request's (or its own earlier one's): a refusal,
   * or the stored answer. A row gone meanwhile (released by a 5xx) is a request still to be retried.
   */
  function verdict(r: KeyRequest, row: IdempotencyRow | undefined): TillError | Replayed {
    if (row && row.fingerprint !== r.fingerprint) return new IdempotencyMismatch()
    if (!row || row.responseStatus === null) return new IdempotencyInFlight()
    const body = row.responseBody && sealedBody.test(row.responseBody) ? deps.box.open(row.responseBody, aad(r.scope, r.key)) : row.responseBody
    return new Replayed(row.responseStatus, body)
  }

  /**
   * Releases a key after a 5xx, or stores an answer; when the database refuses (it is away: that is
   * often why the request failed), again and again in the background until the key's lease ends. The
   * answer already made is sent either way, and waits for the first try at most SETTLE_WAIT_MS (on a
   * frozen database it would wait for the query's timeout).
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
   * One request's key: claimed before its work (`claimFirst`) or with it (`once`), settled when its
   * answer is sent (`finish`). It is also the work's `KeyInWork` (one object a request, no closures).
   */
  class HeldKey implements RequestKey, KeyInWork {
    private readonly claim: KeyClaim
    /** Claimed before the work, under this lease: this request alone may release it or answer it. */
    private claimedFirst = false
    /** Claimed in flight by the work (a refund's reservation): answered when the work returns. */
    private inFlight = false
    /** The work's statements store its answer (committed once the work returns). */
    private storedInWork = false
    /** The work stored its answer, or the answer is another request's row: nothing left to store (`finish` has nothing to do). */
    answered = false
    /** The bytes to send, as stored. */
    sent: string | null = null

    constructor(private readonly r: KeyRequest) {
      const now = deps.clock()
      this.claim = { merchantId: r.scope.merchantId, mode: r.scope.mode, key: r.key, fingerprint: r.fingerprint, now, lockedUntil: new Date(now.getTime() + LEASE_MS) }
    }

    get key() {
      return this.r.key
    }

    claimAnswered(view: unknown): KeyClaim {
      this.storedInWork = true
      return { ...this.claim, answer: this.stored(view) }
    }

    async reserve<T extends { createdAt: Date }, A>(tx: Executor, rows: KeptRows<T, A>) {
      this.inFlight = true
      return keptFor(await rows.claiming(tx, this.claim), tx, rows, deps.clock())
    }

    answering(view: unknown): KeyAnswer {
      this.storedInWork = true
      const { scope, key } = this.r
      return { merchantId: scope.merchantId, mode: scope.mode, key, ...this.stored(view) }
    }

    async answer(ex: Executor, view: unknown) {
      const { status, body } = this.stored(view)
      await saveResponse(ex, this.r.scope, this.r.key, status, body)
      this.storedInWork = true
    }

    private stored(view: unknown) {
      const { status, body } = this.r.serialize(view)
      this.sent = body
      return { status, body: this.r.sealed ? deps.box.seal(body, aad(this.r.scope, this.r.key)) : body }
    }

    /** Runs the work with the key; a key another request holds answers as that request's row says (a TillError, or `Replayed`). */
    async once<V>(work: (key: KeyInWork) => Promise<V>): Promise<V> {
      const deadline = performance.now() + IN_FLIGHT_WAIT_MS
      for (;;) {
        this.inFlight = this.storedInWork = false
        try {
          const view = await work(this)
          // The answer alone, when the work's statements did not hold it.
          if (!this.storedInWork) {
            if (!this.inFlight) throw new Error('a keyed work returned without claiming its key')
            await this.answer(deps.db, view)
          }
          this.answered = true
          return view
        } catch (e) {
          if (!(e instanceof KeyTaken)) throw e
        }
        // The key is another request's (nothing of this one's work was done): its answer, or once it is
        // released or its lease lapses, this request's own work.
        const v = verdict(this.r, await findKey(deps.db, this.r.scope, this.r.key))
        if (v instanceof IdempotencyInFlight && performance.now() < deadline) {
          await pause(IN_FLIGHT_POLL_MS)
          continue
        }
        this.answered = true
        throw v
      }
    }

    /** A route whose work does not claim its key: claimed here, before the work; null when claimed, else the answer to send instead. */
    async claimFirst(): Promise<TillError | Replayed | null> {
      const deadline = performance.now() + IN_FLIGHT_WAIT_MS
      for (;;) {
        // Set before the claim: a claim whose COMMIT was lost with its connection may be committed all
        // the same, and the 503 then releases it.
        this.claimedFirst = true
        const existing = await claimKey(deps.db, this.r.scope, this.r.key, this.r.fingerprint, this.claim.now, LEASE_MS)
        if (!existing) return null
        this.claimedFirst = false
        const v = verdict(this.r, existing)
        if (v instanceof IdempotencyInFlight && performance.now() < deadline) {
          await pause(IN_FLIGHT_POLL_MS)
          continue
        }
        this.answered = true
        return v
      }
    }

    /**
     * The answer being sent: a 5xx releases the key (whether or not the work's commit was seen: a
     * connection lost during COMMIT leaves the claim committed though the work failed, and only this
     * lease's row is deleted); any other answer the work did not store is stored now. If another
     * request holds the key, a refusal becomes what its row says, as if the key had been claimed first.
     */
    async finish(status: number, payload: string): Promise<TillError | Replayed | null> {
      if (this.answered) return null
      this.answered = true
      const { scope, key } = this.r
      const lease = this.claim.lockedUntil
      if (status >= 500) {
        await settle(() => releaseKey(deps.db, scope, key, lease), lease)
        return null
      }
      const body = this.r.sealed ? deps.box.seal(payload, aad(scope, key)) : payload
      if (this.claimedFirst) {
        await settle(() => saveResponse(deps.db, scope, key, status, body), lease)
        return null
      }
      try {
        if (await answerKey(deps.db, this.claim, { status, body })) return null
        return verdict(this.r, await findKey(deps.db, scope, key))
      } catch (err) {
        // Sent without being remembered: the same request is refused the same way when retried.
        outage.failed('idempotency-key', err, 'a refusal not remembered for its idempotency key')
        return null
      }
    }
  }

  return { forRequest: (r: KeyRequest) => new HeldKey(r) }
}

export type HeldKey = ReturnType<ReturnType<typeof idempotencyKeys>['forRequest']>
