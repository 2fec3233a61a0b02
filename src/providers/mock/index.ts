/**
 * The test-mode provider. It keeps no state of its own: what the customer did (the page's or a test
 * helper's pay or fail) and the refund behaviour chosen when paying ride in the attempt's opaque
 * data, and its notifications are HMAC-signed like a real provider's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { randomBase62 } from '../../domain/ids.js'
import type { Fact, PaymentProvider, ProviderConfig, RefundState } from '../types.js'

export const REFUND_BEHAVIORS = ['succeed', 'pending', 'fail'] as const
export type RefundBehavior = (typeof REFUND_BEHAVIORS)[number]
/** What a test payment's dispute does (the pay helper's `dispute`): stays open, or closes won or lost. */
export const MOCK_DISPUTES = ['open', 'won', 'lost'] as const
export type MockDispute = (typeof MOCK_DISPUTES)[number]
export const MOCK_SIGNATURE_HEADER = 'x-mock-signature'
/** A `pending` mock refund settles by itself this long after it was made. */
export const MOCK_PENDING_REFUND_MS = 30_000

const sign = (key: Buffer, body: Buffer) => createHmac('sha256', key).update(body).digest('hex')
const signingKey = (cfg: ProviderConfig) => cfg.credentials.signingKey as Buffer

export interface MockNotice {
  facts: Fact[]
}

/** What the mock provider's servers would POST to /hooks/mock. */
export function buildMockNotification(cfg: ProviderConfig, notice: MockNotice) {
  const body = Buffer.from(JSON.stringify(notice))
  return { body, headers: { 'content-type': 'application/json', [MOCK_SIGNATURE_HEADER]: sign(signingKey(cfg), body) } }
}

const refundOutcome = (behavior: unknown): RefundState['status'] =>
  behavior === 'fail' ? 'failed' : behavior === 'pending' ? 'pending' : 'succeeded'

export function createMockProvider(now: () => Date): PaymentProvider {
  return {
    id: 'mock',

    // `outcome`: the customer paid (or failed) at once, as the test helpers and the page's buttons
    // have them do; `requestKey`: the Idempotency-Key of the helper's request, so its retry is known.
    async createAttempt(_cfg, a) {
      const behavior = (a.options.refundBehavior as RefundBehavior | undefined) ?? 'succeed'
      const { outcome, requestKey } = a.options
      return {
        providerRef: `mock_pay_${randomBase62(24)}`,
        action: { kind: 'none' },
        data: { refundBehavior: behavior, ...(outcome ? { outcome, amount: a.amount, currency: a.currency } : {}), ...(requestKey ? { requestKey } : {}) },
      }
    },

    async parseNotification(cfg, raw) {
      // Compared as bytes: a header's Latin-1 character is one character but two UTF-8 bytes.
      const given = Buffer.from(String(raw.headers[MOCK_SIGNATURE_HEADER] ?? ''))
      const expected = Buffer.from(sign(signingKey(cfg), raw.body))
      const ok = given.length === expected.length && timingSafeEqual(given, expected)
      if (!ok) return { ack: { status: 401, body: { error: 'invalid signature' } }, facts: [] }
      const notice = JSON.parse(raw.body.toString('utf8')) as MockNotice
      const facts = notice.facts.map((f) => (f.kind === 'payment' && f.paidAt ? { ...f, paidAt: new Date(f.paidAt) }
        : f.kind === 'dispute' && f.dueBy ? { ...f, dueBy: new Date(f.dueBy) } : f))
      return { ack: { status: 200, body: { received: true } }, facts }
    },

    // The mock's customer pays only through the page or a test helper, which notify at once; a
    // notification that was lost (the database away) is found here by reconciliation, as with any provider.
    async queryPayment(_cfg, ref) {
      const d = ref.data
      if (d.outcome === 'succeeded') return { status: 'succeeded', providerRef: ref.providerRef ?? undefined, amount: d.amount as number, currency: d.currency as string }
      if (d.outcome === 'failed') return { status: 'failed' }
      return { status: 'pending' }
    },

    async closePayment() {
      return { closed: true }
    },

    async refund(_cfg, r) {
      const status = refundOutcome(r.payment.data.refundBehavior)
      return {
        status,
        providerRefundRef: `mock_ref_${r.refundId.slice(4)}`,
        currency: r.currency,
        ...(status === 'failed' ? { failureReason: 'the mock provider was told to fail this refund' } : {}),
      }
    },

    async queryRefund(_cfg, ref) {
      let status = refundOutcome(ref.payment.data.refundBehavior)
      if (status === 'pending' && now().getTime() - ref.createdAt.getTime() >= MOCK_PENDING_REFUND_MS) status = 'succeeded'
      return { status, providerRefundRef: `mock_ref_${ref.refundId.slice(4)}` }
    },
  }
}
