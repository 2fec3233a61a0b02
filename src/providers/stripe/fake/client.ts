/**
 * A small client for the fake's /__fake/stripe knobs, over HTTP, for Till's tests and for merchants
 * testing their own integration offline. Every method maps to one documented route; the calls
 * every fake has come from fake-kit/knob-client.ts.
 */
import { knobCaller, sharedKnobCalls, type ForcedErrorInput } from '../../fake-kit/knob-client.js'
import type { Delivery } from './store.js'

export interface FakeError extends ForcedErrorInput {
  route: 'createCheckoutSession' | 'getCheckoutSession' | 'expireCheckoutSession' | 'createRefund' | 'getRefund' | 'listRefunds' | 'listBalanceTransactions' | 'createWebhookEndpoint' | '*'
}

export function stripeFakeControl(baseUrl: string) {
  const call = knobCaller(baseUrl, '/__fake/stripe')
  return {
    ...sharedKnobCalls<FakeError>(call),
    addAccount: (a: { secretKey?: string } = {}) => call('POST', '/accounts', a) as Promise<{ secretKey: string }>,
    registerWebhook: (url: string, o: { secretKey?: string; secret?: string; events?: string[] } = {}) => call('POST', '/webhooks', { url, ...o }) as Promise<{ id: string; secret: string }>,
    rollSecret: (endpointId: string) => call('POST', '/roll-secret', { endpoint_id: endpointId }) as Promise<{ secret: string; previous: string }>,
    complete: (sessionId: string, card?: string) => call('POST', '/complete', { session_id: sessionId, card }) as Promise<{ ok: true; redirect: string; session: any }>,
    payLater: (sessionId: string, outcome: 'succeeded' | 'failed', delayMs = 0) => call('POST', '/pay-later', { session_id: sessionId, outcome, delayMs }) as Promise<{ ok: true; redirect: string; session: any }>,
    expire: (sessionId: string) => call('POST', '/expire', { session_id: sessionId }),
    refundOutcome: (o: { status: 'succeeded' | 'failed' | 'canceled'; delayMs?: number; persist?: boolean }) => call('POST', '/refund-outcome', o),
    dispute: (paymentIntent: string) => call('POST', '/dispute', { payment_intent: paymentIntent }) as Promise<{ ok: true; dispute: string }>,
    closeDispute: (paymentIntent: string, dispute: string, status: 'won' | 'lost') => call('POST', '/dispute-close', { payment_intent: paymentIntent, dispute, status }),
    badSignature: () => call('POST', '/bad-signature', {}),
    resend: (eventId: string) => call('POST', '/resend', { event_id: eventId }),
    settings: (o: { webhookBeforeRedirect?: boolean }) => call('POST', '/settings', o),
    deliveries: async () => (await call('GET', '/deliveries')).deliveries as Delivery[],
    requests: async () => (await call('GET', '/requests')).requests as Array<{ method: string; path: string; request?: any; idempotencyKey?: string; status: number; body: any; atMs: number }>,
    events: async () => (await call('GET', '/events')).events as Array<{ id: string; type: string; created: number; body: any }>,
    session: (id: string) => call('GET', `/sessions/${encodeURIComponent(id)}`),
  }
}

export type StripeFakeControl = ReturnType<typeof stripeFakeControl>
