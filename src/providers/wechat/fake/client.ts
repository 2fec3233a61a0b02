/**
 * A small client for the fake's /__fake/wechat knobs, over HTTP, for Till's tests and for merchants
 * testing their own integration offline. Every method maps to one documented route; the calls
 * every fake has come from fake-kit/knob-client.ts.
 */
import { knobCaller, sharedKnobCalls, type ForcedErrorInput } from '../../fake-kit/knob-client.js'
import { statementKnobCalls } from '../../fake-kit/statement-knobs.js'
import type { Delivery } from './store.js'

/** A notification as GET /deliveries lists it. */
export type FakeDelivery = Delivery

export interface FakeError extends ForcedErrorInput {
  route: 'native' | 'jsapi' | 'h5' | 'query' | 'close' | 'refund' | 'queryRefund' | 'certificates' | 'tradebill' | 'fundflowbill' | 'billdownload' | 'statements' | '*'
  code?: string
}

export type OrderRef = { out_trade_no: string; mchid?: string } | { code_url: string } | { prepay_id: string }

export function wechatFakeControl(baseUrl: string) {
  const call = knobCaller(baseUrl, '/__fake/wechat')
  return {
    ...sharedKnobCalls<FakeError>(call),
    ...statementKnobCalls(call),
    pay: (ref: OrderRef, o: { openid?: string; bank_type?: string; at?: 'now' | 'close' } = {}) => call('POST', '/pay', { ...ref, ...o }),
    fail: (ref: OrderRef) => call('POST', '/fail', ref),
    expire: (ref: OrderRef) => call('POST', '/expire', ref),
    refundOutcome: (o: { out_refund_no?: string; status: 'SUCCESS' | 'ABNORMAL' | 'CLOSED'; delayMs?: number; sync?: boolean }) => call('POST', '/refund-outcome', o),
    probe: () => call('POST', '/probe', {}),
    /** Cross-border: the day's rate, CNY per major unit of each listed currency. */
    rates: (rates: Record<string, number>) => call('POST', '/rates', rates),
    settings: (o: { enforceAccept?: boolean; rejectUnknownFields?: boolean; strictAckDeadline?: boolean }) => call('POST', '/settings', o),
    mode: (mode: 'publicKey' | 'platformCert', rotate = false) => call('POST', '/mode', { mode, rotate }),
    identity: () => call('GET', '/identity'),
    refundResolve: (o: { out_refund_no: string; status: 'SUCCESS' | 'CLOSED' }) => call('POST', '/refund-resolve', o),
    resend: (ref: OrderRef | { out_refund_no: string }, url?: string) => call('POST', '/resend', { ...ref, url }),
    deliveries: async () => (await call('GET', '/deliveries')).deliveries as FakeDelivery[],
    requests: async () => (await call('GET', '/requests')).requests as Array<{ method: string; path: string; request?: any; wechatpaySerial?: string; status: number; atMs: number }>,
    order: (outTradeNo: string) => call('GET', `/orders/${encodeURIComponent(outTradeNo)}`),
    refund: (outRefundNo: string) => call('GET', `/refunds/${encodeURIComponent(outRefundNo)}`),
    jsapiCheck: (params: Record<string, string>, pay = false) => call('POST', '/jsapi/check', { ...params, pay }) as Promise<{ ok: boolean; reason?: string; err_msg: string }>,
  }
}

export type WechatFakeControl = ReturnType<typeof wechatFakeControl>
