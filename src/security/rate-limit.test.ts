import assert from 'node:assert/strict'
import { test } from 'node:test'
import { blockSize, KeyBuckets, type Claim } from './rate-limit.js'

/** A shared counter per (key, window), as PostgreSQL keeps it; counts the claims made. */
function counter(revoked = new Set<string>()) {
  const counts = new Map<string, number>()
  const state = { claims: 0 }
  const claim: Claim = async (hash, window, tokens) => {
    state.claims++
    await new Promise((r) => setImmediate(r)) // a round trip: concurrent callers overlap here
    if (revoked.has(hash)) return null
    const k = `${hash}@${window}`
    counts.set(k, (counts.get(k) ?? 0) + tokens)
    return { keyId: `key_${hash}`, merchantId: 'mer_1', mode: 'test', count: counts.get(k)! }
  }
  return { claim, state, counts }
}

const at = (ms: number) => new Date(1_700_000_000_000 + ms)

async function burst(buckets: KeyBuckets, n: number, limit: number, claim: Claim, now = at(0)) {
  const answers = await Promise.allSettled(Array.from({ length: n }, () => buckets.admit('h', now, limit, claim)))
  return {
    admitted: answers.filter((a) => a.status === 'fulfilled' && a.value).length,
    limited: answers.filter((a) => a.status === 'rejected' && (a.reason as { status?: number }).status === 429).length,
  }
}

test('a twentieth of the limit per claim, at least one', () => {
  assert.deepEqual([1, 5, 19, 20, 100, 10_000_000].map(blockSize), [1, 1, 1, 1, 5, 500_000])
})

test('a burst past the limit admits exactly the limit; concurrent requests share one claim at a time', async () => {
  const c = counter()
  const buckets = new KeyBuckets()
  assert.deepEqual(await burst(buckets, 150, 100, c.claim), { admitted: 100, limited: 50 })
  // 100 tokens in blocks of 5, then one claim that finds the limit reached; nothing more this second.
  assert.equal(c.state.claims, 21)
  assert.deepEqual(await burst(buckets, 10, 100, c.claim), { admitted: 0, limited: 10 })
  assert.equal(c.state.claims, 21)
})

test('a new window starts a new count', async () => {
  const c = counter()
  const buckets = new KeyBuckets()
  assert.deepEqual(await burst(buckets, 8, 5, c.claim, at(999)), { admitted: 5, limited: 3 })
  assert.deepEqual(await burst(buckets, 8, 5, c.claim, at(1000)), { admitted: 5, limited: 3 })
})

test('instances sharing the counter never admit more than the limit together', async () => {
  const c = counter()
  const a = new KeyBuckets()
  const b = new KeyBuckets()
  const [x, y] = await Promise.all([burst(a, 100, 100, c.claim), burst(b, 100, 100, c.claim)])
  const admitted = x.admitted + y.admitted
  // At most one block minus a token is stranded in the instance that claimed it last.
  assert.ok(admitted <= 100 && admitted >= 96, `admitted ${admitted}`)
})

test('an unknown or revoked key is null, and a forgotten key is looked up again', async () => {
  const revoked = new Set<string>()
  const c = counter(revoked)
  const buckets = new KeyBuckets()
  assert.equal((await buckets.admit('h', at(0), 100, c.claim))?.keyId, 'key_h')
  revoked.add('h')
  // Still holding tokens from its block: served until they run out or the second ends…
  assert.equal((await buckets.admit('h', at(1), 100, c.claim))?.keyId, 'key_h')
  assert.equal(await buckets.admit('h', at(1000), 100, c.claim), null)
  // …unless this instance revoked it, which forgets it at once.
  revoked.delete('h')
  await buckets.admit('h', at(2000), 100, c.claim)
  revoked.add('h')
  buckets.forget('key_h')
  assert.equal(await buckets.admit('h', at(2001), 100, c.claim), null)
})

test('a failed claim fails every request waiting on it, and the next request claims again', async () => {
  const c = counter()
  let down = true
  const flaky: Claim = async (...args) => {
    if (down) throw new Error('database unreachable')
    return c.claim(...args)
  }
  const buckets = new KeyBuckets()
  const answers = await Promise.allSettled(Array.from({ length: 3 }, () => buckets.admit('h', at(0), 100, flaky)))
  assert.deepEqual(answers.map((a) => a.status), ['rejected', 'rejected', 'rejected'])
  down = false
  assert.equal((await buckets.admit('h', at(0), 100, flaky))?.keyId, 'key_h')
})
