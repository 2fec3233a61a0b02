/**
 * The fake Creem's in-memory world (docs/providers.md#testing-offline-till-fake-creem): accounts (API key, webhook secret and the
 * webhook URLs registered "in the dashboard"), products, checkouts, customers, orders,
 * transactions, refunds and events, the test knobs, and its timed jobs (fake-kit/jobs.ts).
 */
import { randomBytes } from 'node:crypto'
import { defaultNotifyKnob } from '../../fake-kit/delivery.js'
import type { ForcedError } from '../../fake-kit/forced-errors.js'
import { JobQueue } from '../../fake-kit/jobs.js'
import { StatementKnobBook } from '../../fake-kit/statement-knobs.js'

export interface Account {
  apiKey: string
  webhookSecret: string
  webhookUrls: string[]
}

export interface Product {
  id: string
  apiKey: string
  name: string
  description: string | null
  price: number
  currency: string
  billingType: 'onetime' | 'recurring'
  billingPeriod: string | null
  taxMode: 'inclusive' | 'exclusive'
  taxCategory: string | null
  defaultSuccessUrl: string | null
  createdAtMs: number
}

export type CheckoutStatus = 'pending' | 'processing' | 'completed' | 'expired'

export interface Checkout {
  id: string
  apiKey: string
  productId: string
  requestId: string | null
  units: number
  /** `custom_price`: the unit price for this checkout instead of the product's (one-time products only). */
  customPrice: number | null
  successUrl: string | null
  metadata: Record<string, unknown> | null
  customerEmail: string | null
  status: CheckoutStatus
  orderId: string | null
  customerId: string | null
  failedTries: number
  createdAtMs: number
}

export interface Customer {
  id: string
  apiKey: string
  email: string
  name: string
  country: string
  createdAtMs: number
}

export interface Order {
  id: string
  apiKey: string
  checkoutId: string
  productId: string
  customerId: string
  transactionId: string
  subTotal: number
  taxAmount: number
  amountPaid: number
  currency: string
  type: 'onetime' | 'recurring'
  createdAtMs: number
}

export type TransactionStatus = 'paid' | 'refunded' | 'partialRefund' | 'chargedBack'

export interface Transaction {
  id: string
  apiKey: string
  orderId: string
  checkoutId: string
  customerId: string
  amount: number
  taxAmount: number
  amountPaid: number
  currency: string
  taxCountry: string
  status: TransactionStatus
  refundedAmount: number
  createdAtMs: number
}

export type RefundStatus = 'pending' | 'requiresAction' | 'succeeded' | 'failed' | 'canceled'

export interface Refund {
  id: string
  apiKey: string
  transactionId: string
  /** Tax included, as Creem reports refunds. */
  amount: number
  currency: string
  reason: string
  status: RefundStatus
  via: 'api' | 'dashboard'
  /** What `pending` becomes when its settlement job runs. */
  outcome: 'succeeded' | 'failed' | 'canceled'
  createdAtMs: number
}

export interface StoredEvent {
  id: string
  apiKey: string
  eventType: string
  body: string
  createdAtMs: number
}

export interface Delivery {
  eventId: string
  eventType: string
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
  delayMs: number
  /** Answer POST /v1/refunds with the final status instead of `pending`. */
  sync: boolean
  /** Keep this outcome for every refund, not only the next one. */
  persist: boolean
}

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export function creemId(prefix: string, length = 22): string {
  const bytes = randomBytes(length * 2)
  let s = ''
  for (let i = 0; s.length < length; i++) if (bytes[i % bytes.length] < 248) s += B62[bytes[i % bytes.length] % 62]
  return `${prefix}_${s}`
}

export const DEFAULT_REFUND_OUTCOME: RefundOutcome = { status: 'succeeded', delayMs: 0, sync: false, persist: false }

export class FakeStore {
  readonly accounts = new Map<string, Account>()
  readonly products = new Map<string, Product>()
  readonly checkouts = new Map<string, Checkout>()
  readonly customers = new Map<string, Customer>()
  readonly orders = new Map<string, Order>()
  readonly transactions = new Map<string, Transaction>()
  readonly refunds = new Map<string, Refund>()
  readonly events = new Map<string, StoredEvent>()
  readonly deliveries: Delivery[] = []
  /** Every /v1 call and its answer, for tests to see what the adapter asked. */
  readonly requests: Array<{ method: string; path: string; request?: unknown; status: number; body: unknown; atMs: number }> = []
  readonly knobs = {
    clockSkewSec: 0,
    /** 403 as the error page documents, or 401 as the OpenAPI file does (§2.1). */
    authFailureStatus: 403 as 401 | 403,
    rejectUnknownFields: true,
    /** Tax Creem adds (exclusive products) or carves out (inclusive ones), e.g. 0.21. */
    taxRate: 0,
    /** Deliver checkout.completed before the browser is redirected (Creem does not promise the order). */
    webhookBeforeRedirect: true,
    notify: defaultNotifyKnob(),
    badSignatureNext: false,
    refundOutcome: { ...DEFAULT_REFUND_OUTCOME },
    errors: [] as ForcedError[],
  }
  readonly jobs: JobQueue
  /** What each UTC day's transactions, listed as a statement, get wrong on purpose (fake-kit/statement-knobs.ts). */
  readonly statementKnobs = new StatementKnobBook()

  constructor(
    readonly clock: () => Date,
    readonly timeFactor: number,
  ) {
    this.jobs = new JobQueue(clock)
  }

  /** The fake's own idea of the time: the shared clock plus the clock-skew knob (it shows in created_at). */
  nowMs(): number {
    return this.clock().getTime() + this.knobs.clockSkewSec * 1000
  }

  account(apiKey: string | undefined): Account | undefined {
    return apiKey ? this.accounts.get(apiKey) : undefined
  }

  /** Only one account: knobs may leave out which. */
  soleAccount(): Account | undefined {
    return this.accounts.size === 1 ? [...this.accounts.values()][0] : undefined
  }

  owned<T extends { apiKey: string }>(map: Map<string, T>, id: unknown, apiKey: string): T | undefined {
    const x = typeof id === 'string' ? map.get(id) : undefined
    return x && x.apiKey === apiKey ? x : undefined
  }

  /** What one unit of a checkout costs: its custom_price, or the product's price. */
  unitPrice(c: Checkout): number {
    return c.customPrice ?? this.products.get(c.productId)!.price
  }

  refundsOf(transactionId: string) {
    return [...this.refunds.values()].filter((r) => r.transactionId === transactionId)
  }
}
