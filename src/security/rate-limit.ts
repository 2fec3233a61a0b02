/**
 * Rate limit per API key (docs/integrate.md#errors-idempotency-and-rate-limits), shared by every instance, without a database round trip
 * per request. Each instance takes a key's requests out of a local bucket of tokens; a bucket is
 * filled by one statement (store/repos/rate-limits.ts) that looks the key up again and claims a
 * block of tokens from the key's counter for the current one-second window. The counter in
 * PostgreSQL is shared, and only tokens it granted are spent, so all instances together never admit
 * more than the limit; tokens one instance claimed and did not use are lost to the others for the
 * rest of that second, so they may admit up to (block - 1) fewer per other instance.
 *
 * The same statement re-checks the key: a key revoked elsewhere stops working on an instance when its
 * bucket runs dry or the window ends, within a second; on the instance that revoked it, at once.
 */
import { RateLimited } from '../domain/errors.js'

export const RATE_WINDOW_MS = 1000

/** The window `now` falls in: whole seconds since the epoch, in ms. */
export const windowStart = (now: Date) => now.getTime() - (now.getTime() % RATE_WINDOW_MS)

/** Tokens claimed per round trip: a twentieth of the limit, so a key at its limit costs 20 statements a second per instance. */
export const blockSize = (limit: number) => Math.max(1, Math.floor(limit / 20))

export interface KeyIdentity {
  keyId: string
  merchantId: string
  mode: 'test' | 'live'
}

/** What the fill statement answers: the key (null when unknown or revoked) and its counter after the claim. */
export type Claim = (keyHash: string, windowStart: number, tokens: number) => Promise<(KeyIdentity & { count: number }) | null>

interface Bucket extends KeyIdentity {
  window: number
  tokens: number
  /** The counter reached the limit in this window: no claim can grant more. */
  exhausted: boolean
}

/** Local buckets of one instance, by key hash. */
export class KeyBuckets {
  private readonly buckets = new Map<string, Bucket>()
  /** One fill in flight per key: concurrent requests wait for it instead of each claiming. */
  private readonly filling = new Map<string, Promise<void>>()

  /**
   * The key's identity with one token spent; null for an unknown or revoked key; throws 429 past the
   * limit. `claim` runs the fill statement on the caller's database.
   */
  async admit(keyHash: string, now: Date, limit: number, claim: Claim): Promise<KeyIdentity | null> {
    const window = windowStart(now)
    for (;;) {
      const b = this.buckets.get(keyHash)
      if (b && b.window === window) {
        if (b.tokens > 0) {
          b.tokens--
          return b
        }
        if (b.exhausted) throw new RateLimited(Math.max(1, Math.ceil((window + RATE_WINDOW_MS - now.getTime()) / 1000)))
      }
      const pending = this.filling.get(keyHash)
      if (pending) {
        await pending
        continue
      }
      const fill = this.fill(claim, keyHash, window, limit)
      this.filling.set(keyHash, fill.then(() => {}, () => {}))
      try {
        if (!(await fill)) return null
      } finally {
        this.filling.delete(keyHash)
      }
    }
  }

  /** Drops a revoked key's bucket: its next request looks it up again. */
  forget(keyId: string) {
    for (const [hash, b] of this.buckets) if (b.keyId === keyId) this.buckets.delete(hash)
  }

  private async fill(claim: Claim, keyHash: string, window: number, limit: number): Promise<boolean> {
    const block = blockSize(limit)
    const found = await claim(keyHash, window, block)
    if (!found) {
      this.buckets.delete(keyHash)
      return false
    }
    // The claim took tokens (count - block, count]; those up to the limit are ours.
    const granted = Math.max(0, Math.min(block, limit - (found.count - block)))
    const b = this.buckets.get(keyHash)
    const left = b && b.window === window ? b.tokens : 0
    if (this.buckets.size > 10_000) this.dropOld(window)
    this.buckets.set(keyHash, { keyId: found.keyId, merchantId: found.merchantId, mode: found.mode, window, tokens: left + granted, exhausted: granted < block })
    return true
  }

  private dropOld(window: number) {
    for (const [hash, b] of this.buckets) if (b.window < window) this.buckets.delete(hash)
  }
}
