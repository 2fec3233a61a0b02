/**
 * A small client for the fake's /__fake/wechat knobs, over HTTP, for Till's tests and for merchants
 * testing their own integration offline. Every method maps to one documented route.
 */
export interface FakeDelivery {
  id: string
  eventType: string
  ref: string
  url: string
  attempt: number
  probe: boolean
  status: number | null
  acked: boolean
  atMs: number
  error?: string
}

export interface FakeError {
  route: 'native' | 'jsapi' | 'h5' | 'query' | 'close' | 'refund' | 'queryRefund' | 'certificates' | '*'
  status?: number
  code?: string
  message?: string
  applied?: boolean
  hangMs?: number
  times?: number
}

export type OrderRef = { out_trade_no: string; mchid?: string } | { code_url: string } | { prepay_id: string }

export function wechatFakeControl(baseUrl: string) {
  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch(`${baseUrl}/__fake/wechat${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await res.json()) as any
    if (!res.ok) throw new Error(`fake ${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
  return {
    pay: (ref: OrderRef, o: { openid?: string; bank_type?: string; at?: 'now' | 'close' } = {}) => call('POST', '/pay', { ...ref, ...o }),
    fail: (ref: OrderRef) => call('POST', '/fail', ref),
    expire: (ref: OrderRef) => call('POST', '/expire', ref),
    refundOutcome: (o: { out_refund_no?: string; status: 'SUCCESS' | 'ABNORMAL' | 'CLOSED'; delayMs?: number; sync?: boolean }) => call('POST', '/refund-outcome', o),
    notifications: (o: { mode: 'immediate' | 'delayed' | 'drop' | 'duplicate' | 'reorder'; delayMs?: number; count?: number; persist?: boolean }) => call('POST', '/notifications', o),
    probe: () => call('POST', '/probe', {}),
    clockSkew: (seconds: number) => call('POST', '/clock-skew', { seconds }),
    settings: (o: { enforceAccept?: boolean; rejectUnknownFields?: boolean; strictAckDeadline?: boolean }) => call('POST', '/settings', o),
    error: (e: FakeError) => call('POST', '/errors', e),
    clearErrors: () => call('DELETE', '/errors'),
    mode: (mode: 'publicKey' | 'platformCert', rotate = false) => call('POST', '/mode', { mode, rotate }),
    identity: () => call('GET', '/identity'),
    refundResolve: (o: { out_refund_no: string; status: 'SUCCESS' | 'CLOSED' }) => call('POST', '/refund-resolve', o),
    resend: (ref: OrderRef | { out_refund_no: string }, url?: string) => call('POST', '/resend', { ...ref, url }),
    tick: () => call('POST', '/tick', {}) as Promise<{ ran: number; pending: number }>,
    flushHeld: () => call('POST', '/flush-held', {}),
    deliveries: async () => (await call('GET', '/deliveries')).deliveries as FakeDelivery[],
    requests: async () => (await call('GET', '/requests')).requests as Array<{ method: string; path: string; status: number; atMs: number }>,
    order: (outTradeNo: string) => call('GET', `/orders/${encodeURIComponent(outTradeNo)}`),
    refund: (outRefundNo: string) => call('GET', `/refunds/${encodeURIComponent(outRefundNo)}`),
    jsapiCheck: (params: Record<string, string>, pay = false) => call('POST', '/jsapi/check', { ...params, pay }) as Promise<{ ok: boolean; reason?: string; err_msg: string }>,
  }
}

export type WechatFakeControl = ReturnType<typeof wechatFakeControl>
