/**
 * The fake Stripe's in-memory world (docs/providers.md#testing-offline-till-fake-stripe): accounts
 * (secret key, webhook endpoints with their signing secrets), Checkout Sessions, PaymentIntents,
 * charges, refunds, disputes, balance transactions, events, the Idempotency-Key memory, the test
 * knobs and its timed jobs (fake-kit/jobs.ts).
 */
import { randomBytes } from 'node:crypto'
import { defaultNotifyKnob } from '../../fake-kit/delivery.js'
import type { ForcedError } from '../../fake-kit/forced-errors.js'
import { JobQueue } from '../../fake-kit/jobs.js'

export interface Endpoint {
  id: string
  url: string
  secret: string
  events: string[]
  /** Unix seconds; absent on endpoints added by the control API or a state file. */
  created?: number
}

export interface Account {
  secretKey: string
  endpoints: Endpoint[]
}

export interface Session {
  id: string
  secretKey: string
  status: 'open' | 'complete' | 'expired'
  paymentStatus: 'paid' | 'unpaid'
  amount: number
  currency: string
  name: string
  clientReferenceId: string | null
  metadata: Record<string, string>
  piMetadata: Record<string, string>
  successUrl: string
  cancelUrl: string | null
  expiresAt: number
  locale: string | null
  paymentIntentId: string | null
  /** A 3-D Secure challenge waiting for the buyer. */
  challenge: boolean
  declines: number
  created: number
}

export interface PaymentIntent {
  id: string
  secretKey: string
  sessionId: string
  amount: number
  currency: string
  status: 'succeeded' | 'processing' | 'requires_payment_method' | 'canceled'
  metadata: Record<string, string>
  chargeId: string | null
  created: number
}

export interface Charge {
  id: string
  secretKey: string
  paymentIntentId: string
  amount: number
  currency: string
  amountRefunded: number
  metadata: Record<string, string>
  disputed: boolean
  created: number
}

export type RefundStatus = 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'canceled'

export interface Refund {
  id: string
  secretKey: string
  paymentIntentId: string
  chargeId: string
  amount: number
  currency: string
  status: RefundStatus
  outcome: 'succeeded' | 'failed' | 'canceled'
  failureReason: string | null
  metadata: Record<string, string>
  created: number
}

export interface Dispute {
  id: string
  secretKey: string
  chargeId: string
  status: 'needs_response' | 'under_review' | 'won' | 'lost'
  reason: string
  /** Unix seconds: when the evidence is due (Stripe gives days; the fake, 7). */
  dueBy: number
  created: number
}

export interface BalanceTransaction {
  id: string
  secretKey: string
  type: 'charge' | 'refund' | 'adjustment' | 'refund_failure'
  amount: number
  fee: number
  currency: string
  sourceId: string
  created: number
}

export interface StoredEvent {
  id: string
  secretKey: string
  type: string
  body: string
  created: number
}

export interface Delivery {
  eventId: string
  type: string
  url: string
  attempt: number
  badSignature: boolean
  status: number | null
  acked: boolean
  atMs: number
  error?: string
}

export interface RefundOutcome {
  status: 'succeeded' | 'failed' | 'canceled'
  /** Answer POST /v1/refunds with `pending` and settle after this many ms (0: settle at once, answered final). */
  delayMs: number
  persist: boolean
}

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length * 2)
  let s = ''
  for (let i = 0; s.length < length; i++) if (bytes[i % bytes.length] < 248) s += B62[bytes[i % bytes.length] % 62]
  return `${prefix}_${s}`
}

export const DEFAULT_REFUND_OUTCOME: RefundOutcome = { status: 'succeeded', delayMs: 0, persist: false }

/** Stripe's fee on a card payment, as the fake charges it: 3.6 % (Hong Kong's, rounded), at least 1 minor unit. */
export const feeOf = (amount: number) => Math.max(1, Math.round(amount * 0.036))

export class FakeStore {
  readonly accounts = new Map<string, Account>()
  readonly sessions = new Map<string, Session>()
  readonly intents = new Map<string, PaymentIntent>()
  readonly charges = new Map<string, Charge>()
  readonly refunds = new Map<string, Refund>()
  readonly disputes = new Map<string, Dispute>()
  readonly balance: BalanceTransaction[] = []
  readonly events = new Map<string, StoredEvent>()
  readonly deliveries: Delivery[] = []
  /** Idempotency-Key → the request it came with and the answer given (Stripe keeps them 24 h). */
  readonly idempotency = new Map<string, { fingerprint: string; status: number; body: unknown; atMs: number }>()
  readonly requests: Array<{ method: string; path: string; request?: unknown; idempotencyKey?: string; status: number; body: unknown; atMs: number }> = []
  readonly knobs = {
    clockSkewSec: 0,
    notify: defaultNotifyKnob(),
    badSignatureNext: false,
    refundOutcome: { ...DEFAULT_REFUND_OUTCOME },
    errors: [] as ForcedError[],
    /** Deliver checkout.session.completed before the browser is redirected (Stripe promises no order). */
    webhookBeforeRedirect: true,
  }
  readonly jobs: JobQueue

  constructor(
    readonly clock: () => Date,
    readonly timeFactor: number,
  ) {
    this.jobs = new JobQueue(clock)
  }

  nowSec(): number {
    return Math.floor(this.clock().getTime() / 1000) + this.knobs.clockSkewSec
  }

  soleAccount(): Account | undefined {
    return this.accounts.size === 1 ? [...this.accounts.values()][0] : undefined
  }

  owned<T extends { secretKey: string }>(map: Map<string, T>, id: unknown, secretKey: string): T | undefined {
    const x = typeof id === 'string' ? map.get(id) : undefined
    return x && x.secretKey === secretKey ? x : undefined
  }

  refundsOf(chargeId: string) {
    return [...this.refunds.values()].filter((r) => r.chargeId === chargeId)
  }
}
