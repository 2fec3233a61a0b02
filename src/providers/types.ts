/** The one interface every payment provider implements (docs/architecture.md). Adapters do no DB work. */
import type { Currency } from '../domain/money.js'
import type { Mode } from '../domain/checkout-rules.js'
import type { StatementSource } from './statements.js'

export interface Capabilities {
  currencies: readonly Currency[]
  channels: readonly string[]
  partialRefunds: boolean
  modes: readonly Mode[]
  /** Smallest amount (minor units) per currency the provider takes, where it has one (Creem: 100). */
  minAmount?: Partial<Record<Currency, number>>
}

/** Products a provider needs, made once per (configuration, amount, currency) and remembered. */
export interface ProductStore {
  find(configId: string, amount: number, currency: string): Promise<string | null>
  /** Keeps the first product remembered for the key and answers it: concurrent first uses agree. */
  remember(configId: string, amount: number, currency: string, productId: string): Promise<string>
  /** Drops a product the provider no longer knows (deleted, or the configuration moved to another account). */
  forget(configId: string, amount: number, currency: string, productId: string): Promise<void>
  /** Every product remembered for the configuration, older per-amount ones included: a statement (Creem's transaction search, per product) reads them all. */
  list(configId: string): Promise<string[]>
}

export interface ProviderConfig {
  id: string
  label: string
  credentials: Record<string, unknown>
  settings: { apiBase?: string; [k: string]: unknown }
}

export interface AttemptInput {
  attemptId: string
  sessionId: string
  amount: number
  currency: Currency
  description: string | null
  channel: string | null
  notifyUrl: string
  returnUrl: string
  /** The session's checkout page: where a customer who leaves the provider's page unpaid goes back to. */
  checkoutUrl: string
  expiresAt: Date
  clientIp?: string
  /** Who pays, as the provider's browser step learned it (WeChat: the JSAPI payer's openid). */
  payerId?: string
  /** Options the customer chose on the page (the mock's refund behaviour). */
  options: Record<string, unknown>
}

export type Action =
  | { kind: 'qr'; content: string }
  | { kind: 'redirect'; url: string }
  | { kind: 'in_app'; params: Record<string, string> }
  | { kind: 'none' }

export interface AttemptResult {
  providerRef?: string
  action: Action
  /** Opaque provider state the core stores and passes back. */
  data?: Record<string, unknown>
}

export interface PaymentFact {
  kind: 'payment'
  attemptId: string
  status: 'succeeded' | 'failed' | 'pending'
  providerRef?: string
  amount?: number
  currency?: string
  paidAt?: Date
  /** Opaque provider state learnt with the payment (Creem's transaction id), merged into the attempt's and record's data. */
  data?: Record<string, unknown>
}

export interface RefundFact {
  kind: 'refund'
  /** Our refund id when the provider knows it; absent for refunds Till did not start. */
  refundId?: string
  providerRefundRef?: string
  attemptId?: string
  status: 'succeeded' | 'pending' | 'failed'
  amount?: number
  /** The currency of `amount`, as the provider reports it; Till compares it with the record's. */
  currency?: string
  reason?: string
  failureReason?: string
  /**
   * The provider never names our refund id (Creem): a refund of this amount may be ours, notified
   * before our call's answer was stored, so an unanswered refund of ours of the same amount takes it.
   */
  matchUnanswered?: boolean
}

export interface IgnoredFact {
  kind: 'ignored'
  reason: string
}

/** A dispute (chargeback) on a payment, as read back from the provider (services/disputes.ts). */
export interface DisputeFact {
  kind: 'dispute'
  attemptId: string
  providerDisputeRef: string
  /** The provider's status (Stripe's vocabulary: domain/disputes.ts). */
  status: string
  reason?: string
  amount: number
  currency: string
  dueBy?: Date
}

export type Fact = PaymentFact | RefundFact | IgnoredFact | DisputeFact

export interface NotificationResult {
  /** The exact reply the provider expects. */
  ack: { status: number; body?: unknown; headers?: Record<string, string> }
  facts: Fact[]
}

export interface PaymentRef {
  attemptId: string
  providerRef: string | null
  data: Record<string, unknown>
}

export interface PaymentState {
  status: 'pending' | 'succeeded' | 'failed' | 'closed'
  providerRef?: string
  amount?: number
  /** The currency the provider reports the amount in, checked against the session like a notification's. */
  currency?: string
  paidAt?: Date
  /** As PaymentFact.data: provider state learnt with the payment (what the customer was charged). */
  data?: Record<string, unknown>
}

/**
 * What the customer was charged when the provider converts the listed amount (WeChat Pay Global
 * charges CNY): minor units of `currency`, and `rate`, units of `currency` per major unit of the
 * listed currency, as a decimal string. Kept in the record's providerData under `charged`.
 */
export interface Charged {
  amount: number
  currency: string
  rate?: string
}

/**
 * What a provider's signed return to our relay says. Only a hint: the relay confirms it with the
 * provider's API before anything changes, and an unverified return changes nothing.
 */
export type ReturnHint = { verified: true; attemptId: string | null } | { verified: false; reason: string }

export type CloseResult = { closed: true } | { alreadyPaid: PaymentFact }

export interface RefundInput {
  refundId: string
  amount: number
  totalAmount: number
  currency: Currency
  reason: string | null
  payment: PaymentRef
  notifyUrl: string
}

export interface RefundRef {
  refundId: string
  providerRefundRef: string | null
  amount: number
  createdAt: Date
  payment: PaymentRef
}

export interface RefundState {
  status: 'succeeded' | 'pending' | 'failed'
  providerRefundRef?: string
  failureReason?: string
  /** The currency the provider reports the refund in, where its answer says: checked against the record's. */
  currency?: string
}

export interface PaymentProvider {
  /** The provider's id: 'mock', or a live provider's in the list (index.ts), which this file does not import. */
  readonly id: string
  createAttempt(cfg: ProviderConfig, a: AttemptInput): Promise<AttemptResult>
  parseNotification(cfg: ProviderConfig, raw: { body: Buffer; headers: Record<string, string | string[] | undefined> }): Promise<NotificationResult>
  queryPayment(cfg: ProviderConfig, ref: PaymentRef): Promise<PaymentState>
  closePayment(cfg: ProviderConfig, ref: PaymentRef): Promise<CloseResult>
  refund(cfg: ProviderConfig, r: RefundInput): Promise<RefundState>
  /**
   * Throws ProviderError `not_found` only when the provider certainly never took this refund and
   * asking again cannot refund twice (WeChat: looked up and retried by our out_refund_no); then
   * reconciliation sends it once more. A provider that cannot look a refund up answers `pending`.
   */
  queryRefund(cfg: ProviderConfig, ref: RefundRef): Promise<RefundState>
  /** Checks the signature a provider puts on the customer's return URL (Creem's success redirect). */
  verifyReturn?(cfg: ProviderConfig, query: URLSearchParams): ReturnHint
  /**
   * The end of the module's browser step (module.ts): turns the `code` the step's return carried
   * into the payer's id, passed to createAttempt as `payerId` (WeChat: OAuth code → openid).
   * Throws a `rejected` ProviderError when the provider refuses the code (spent or invalid).
   */
  finishBrowserStep?(cfg: ProviderConfig, code: string): Promise<string>
  /** The provider's daily statement, for reconciliation (statements.ts). */
  readonly statements?: StatementSource
  /**
   * Completes a configuration's credentials with what the provider makes for it, before they are
   * saved (Stripe: Till's webhook endpoint, made at `notifyUrl`, and its signing secret). Throws an
   * InvalidField naming the credential when the provider refuses; nothing is saved then.
   */
  completeCredentials?(c: { credentials: Record<string, unknown>; settings: ProviderConfig['settings'] }, notifyUrl: string): Promise<Record<string, unknown>>
}

/**
 * `unknown`: the request may have reached the provider (timeout, 5xx, reset): nothing is marked
 * failed, reconciliation asks again. `rejected`: the provider definitely refused.
 */
export class ProviderError extends Error {
  constructor(
    readonly outcome: 'rejected' | 'unknown',
    readonly code: string,
    message: string,
    readonly retryable = outcome === 'unknown',
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
