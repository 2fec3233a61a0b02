/**
 * A merchant's mixed load on two Till processes: each client in turn creates a checkout, pays it
 * with the test helper and makes two partial refunds, every request with its own Idempotency-Key and
 * retried with that same key (on either process) after a 503, as docs/integrate.md tells merchants
 * to. Every answer is kept, with when it was asked and answered, for the stage's assertions.
 */
import type { Till } from '../helpers/process.js'

export type Kind = 'checkout' | 'pay' | 'refund'

export interface Answer {
  kind: Kind
  key: string
  instance: number
  status: number
  code?: string
  retryAfter: string | null
  /** performance.now() */
  startedAt: number
  endedAt: number
  body: any
}

/** How long one request may take before it counts as hung (Till must answer well within this). */
const REQUEST_TIMEOUT_MS = 40_000
/** A request retried this long without success is given up (and reported). */
const RETRY_FOR_MS = 120_000

export class Load {
  readonly answers: Answer[] = []
  private stopping = false
  private clients: Promise<void>[] = []

  constructor(private readonly tills: Till[], private readonly key: string) {}

  start(clients = 4, tag = 'l') {
    this.stopping = false
    this.clients = Array.from({ length: clients }, (_, i) => this.client(`${tag}${i}`, i))
  }

  async stop() {
    this.stopping = true
    await Promise.all(this.clients)
  }

  /** Writes answered 200 (all three kinds are writes), in the order they were answered. */
  acked(since = 0): Answer[] {
    return this.answers.filter((a) => a.status === 200 && a.endedAt >= since).sort((a, b) => a.endedAt - b.endedAt)
  }

  private async client(tag: string, i: number) {
    for (let n = 0; !this.stopping; n++) {
      const session = await this.send('checkout', `${tag}-c${n}`, i, '/api/v1/checkout', { amount: 1000, currency: 'CNY' })
      if (!session) continue
      const paid = await this.send('pay', `${tag}-p${n}`, i + 1, `/api/v1/test_helpers/sessions/${session.id}/pay`, {})
      if (!paid) continue
      await this.send('refund', `${tag}-r${n}a`, i, '/api/v1/refunds', { recordId: paid.record.id, amount: 100 })
      await this.send('refund', `${tag}-r${n}b`, i + 1, '/api/v1/refunds', { recordId: paid.record.id, amount: 50 })
    }
  }

  /** One request, retried with the same key on a 503 (after Retry-After) or a lost connection; its 200 body, or null. */
  private async send(kind: Kind, key: string, first: number, path: string, body: unknown): Promise<any> {
    const giveUp = performance.now() + RETRY_FOR_MS
    for (let attempt = 0; performance.now() < giveUp; attempt++) {
      const instance = (first + attempt) % this.tills.length
      const startedAt = performance.now()
      let status = 0
      let parsed: any = null
      let retryAfter: string | null = null
      try {
        const res = await fetch(this.tills[instance].base + path, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        })
        status = res.status
        retryAfter = res.headers.get('retry-after')
        const text = await res.text()
        try {
          parsed = JSON.parse(text)
        } catch {
          parsed = text
        }
      } catch (e) {
        parsed = String(e)
      }
      this.answers.push({ kind, key, instance, status, code: parsed?.code, retryAfter, startedAt, endedAt: performance.now(), body: parsed })
      if (status === 200) return parsed
      if (status !== 503 && status !== 0) return null
      const wait = status === 503 ? Math.min(Number(retryAfter) || 1, 5) * 1000 : 500
      await new Promise((r) => setTimeout(r, wait))
    }
    return null
  }
}

/** The longest time without an acknowledged write between `from` and `to` (performance.now()). */
export function writeGap(answers: Answer[], from: number, to: number): number {
  const times = [from, ...answers.filter((a) => a.status === 200 && a.endedAt > from && a.endedAt < to).map((a) => a.endedAt).sort((a, b) => a - b)]
  let gap = 0
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1])
  return gap
}
