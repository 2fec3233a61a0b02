/**
 * A small client for the fake's /__fake/alipay knobs, over HTTP, for Till's tests and for merchants
 * testing their own integration offline. Every method maps to one documented route; the calls
 * every fake has come from fake-kit/knob-client.ts.
 */
import { knobCaller, sharedKnobCalls, type ForcedErrorInput } from '../../fake-kit/knob-client.js'
import { statementKnobCalls } from '../../fake-kit/statement-knobs.js'
import type { Delivery, LoggedRequest } from './store.js'

export type FakeDelivery = Delivery
export type FakeRequest = LoggedRequest

export interface FakeError extends ForcedErrorInput {
  route: 'precreate' | 'query' | 'close' | 'refund' | 'refundQuery' | 'pagePay' | 'wapPay' | 'billDownloadUrl' | '*'
  /** Alipay's answer: code (derived from sub_code when left out), sub_code and sub_msg. status other than 200 fails the HTTP exchange instead. */
  code?: string
  sub_code?: string
  sub_msg?: string
}

export type TradeRef = { out_trade_no: string; app_id?: string } | { trade_no: string } | { qr_code: string } | { cashier_id: string }

export function alipayFakeControl(baseUrl: string) {
  const call = knobCaller(baseUrl, '/__fake/alipay')
  return {
    ...sharedKnobCalls<FakeError>(call),
    ...statementKnobCalls(call),
    scan: (ref: TradeRef) => call('POST', '/scan', ref),
    pay: (ref: TradeRef, o: { at?: 'now' | 'close' } = {}) => call('POST', '/pay', { ...ref, ...o }),
    fail: (ref: TradeRef) => call('POST', '/fail', ref),
    expire: (ref: TradeRef) => call('POST', '/expire', ref),
    finish: (ref: TradeRef) => call('POST', '/finish', ref),
    tamper: (o: { fields?: Record<string, string>; resign?: boolean; badSignature?: boolean }) => call('POST', '/tamper', o),
    resend: (ref: TradeRef, url?: string) => call('POST', '/resend', { ...ref, url }),
    /** Moves the fake's time on and runs what is due: `seconds`, or to the next pending job (a notification retry). */
    advance: (o: { seconds: number } | { next: true }) => call('POST', '/advance', o) as Promise<{ advancedMs: number; ran: number; pending: number }>,
    settings: (o: { strictAmounts?: boolean; notifyRefundsAndClosings?: boolean; maxTimestampSkewSec?: number | null; refundQueryDelayMs?: number }) => call('POST', '/settings', o),
    identity: () => call('GET', '/identity') as Promise<{ alipayPublicKey: string; alipayCertificate: string; alipayRootCertificate: string; alipayCertSn: string; alipayRootCertSn: string }>,
    order: (outTradeNo: string) => call('GET', `/orders/${encodeURIComponent(outTradeNo)}`),
    deliveries: async () => (await call('GET', '/deliveries')).deliveries as FakeDelivery[],
    requests: async () => (await call('GET', '/requests')).requests as FakeRequest[],
  }
}

export type AlipayFakeControl = ReturnType<typeof alipayFakeControl>
