/**
 * The HTTP side of a fake's knob client: one JSON call to /__fake/<provider>/…, and the calls for
 * the knobs every fake has (knobs.ts). Each provider's client.ts adds its own.
 */
import type { NotifyKnob } from './delivery.js'

export type KnobCall = (method: string, path: string, body?: unknown) => Promise<any>

export function knobCaller(baseUrl: string, prefix: string): KnobCall {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${prefix}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await res.json()) as any
    if (!res.ok) throw new Error(`fake ${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
}

/** A forced error as a test asks for it; `E` adds the provider's routes and fields. */
export interface ForcedErrorInput {
  status?: number
  message?: string
  applied?: boolean
  hangMs?: number
  times?: number
}

export function sharedKnobCalls<E extends ForcedErrorInput & { route: string }>(call: KnobCall) {
  return {
    notifications: (o: Pick<NotifyKnob, 'mode'> & Partial<NotifyKnob>) => call('POST', '/notifications', o),
    clockSkew: (seconds: number) => call('POST', '/clock-skew', { seconds }),
    error: (e: E) => call('POST', '/errors', e),
    clearErrors: () => call('DELETE', '/errors'),
    tick: () => call('POST', '/tick', {}) as Promise<{ ran: number; pending: number }>,
    flushHeld: () => call('POST', '/flush-held', {}),
  }
}
