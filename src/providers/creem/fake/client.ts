/**
 * A small client for the fake's /__fake/creem knobs, over HTTP, for Till's tests and for merchants
 * testing their own integration offline. Every method maps to one documented route; the calls
 * every fake has come from fake-kit/knob-client.ts.
 */
import { knobCaller, sharedKnobCalls, type ForcedErrorInput } from '../../fake-kit/knob-client.js'
import { statementKnobCalls } from '../../fake-kit/statement-knobs.js'
import type { Delivery } from './store.js'

/** A delivery as GET /deliveries lists it. */
export type FakeDelivery = Delivery

export interface FakeError extends ForcedErrorInput {
  route: 'createProduct' | 'getProduct' | 'createCheckout' | 'getCheckout' | 'getTransaction' | 'searchTransactions' | 'refund' | '*'
}

export function creemFakeControl(baseUrl: string) {
  const call = knobCaller(baseUrl, '/__fake/creem')
  return {
    ...sharedKnobCalls<FakeError>(call),
    ...statementKnobCalls(call),
    addAccount: (a: { apiKey?: string; webhookSecret?: string; webhookUrl?: string } = {}) => call('POST', '/accounts', a) as Promise<{ apiKey: string; webhookSecret: string }>,
    registerWebhook: (url: string, apiKey?: string, replace = false) => call('POST', '/webhooks', { url, apiKey, replace }),
    complete: (checkoutId: string, o: { card?: string; email?: string; taxRate?: number } = {}) =>
      call('POST', '/complete', { checkout_id: checkoutId, ...o }) as Promise<{ ok: true; redirect: string | null; checkout: any }>,
    fail: (checkoutId: string, card?: string) => call('POST', '/fail', { checkout_id: checkoutId, card }),
    expire: (checkoutId: string) => call('POST', '/expire', { checkout_id: checkoutId }),
    refundOutcome: (o: { status: 'succeeded' | 'failed' | 'canceled'; delayMs?: number; sync?: boolean; persist?: boolean }) => call('POST', '/refund-outcome', o),
    dashboardRefund: (transactionId: string, amount?: number, reason?: string) => call('POST', '/dashboard-refund', { transaction_id: transactionId, amount, reason }),
    dispute: (transactionId: string) => call('POST', '/dispute', { transaction_id: transactionId }) as Promise<{ ok: true; dispute: string }>,
    badSignature: () => call('POST', '/bad-signature', {}),
    resend: (eventId: string, url?: string) => call('POST', '/resend', { event_id: eventId, url }),
    settings: (o: { authFailureStatus?: 401 | 403; rejectUnknownFields?: boolean; webhookBeforeRedirect?: boolean; taxRate?: number }) => call('POST', '/settings', o),
    deliveries: async () => (await call('GET', '/deliveries')).deliveries as FakeDelivery[],
    requests: async () => (await call('GET', '/requests')).requests as Array<{ method: string; path: string; request?: any; status: number; body: any; atMs: number }>,
    events: async () => (await call('GET', '/events')).events as Array<{ id: string; eventType: string; createdAtMs: number; body: any }>,
    checkout: (id: string) => call('GET', `/checkouts/${encodeURIComponent(id)}`),
    transaction: (id: string) => call('GET', `/transactions/${encodeURIComponent(id)}`),
    products: async () => (await call('GET', '/products')).products as Array<{ id: string; price: number; currency: string; name: string; taxMode: string }>,
  }
}

export type CreemFakeControl = ReturnType<typeof creemFakeControl>
