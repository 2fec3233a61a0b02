/**
 * The `errors` knob: a test makes the fake's next call(s) to a route fail, before acting, after
 * acting (the answer lost), or late. How the error is written on the wire is each provider's.
 */
import { setTimeout as sleep } from 'node:timers/promises'

export interface ForcedError {
  route: string
  status: number
  message: string
  /** Act on the request first, then answer with the error (the "answer lost" case). */
  applied: boolean
  /** Hold the answer this long (real milliseconds), to exercise client timeouts. */
  hangMs: number
  times: number
}

/** The knob's JSON body as a forced error; the message when none is given is the provider's usual one. */
export function readForcedError(b: Record<string, any>, defaultMessage: string): ForcedError {
  return {
    route: b.route, status: Number(b.status ?? 500), message: String(b.message ?? defaultMessage),
    applied: b.applied === true, hangMs: Number(b.hangMs ?? 0), times: Number(b.times ?? 1),
  }
}

/** Takes the forced error for a route, counting down its uses. */
function take<E extends ForcedError>(errors: E[], route: string): E | undefined {
  const i = errors.findIndex((e) => e.route === route || e.route === '*')
  if (i < 0) return undefined
  const e = errors[i]
  if (--e.times <= 0) errors.splice(i, 1)
  return e
}

/** Runs `act` for a call to `route` as the errors knob says; `fail` turns a forced error into the provider's own. */
export async function withForcedError<E extends ForcedError, T>(errors: E[], route: string, fail: (e: E) => Error, act: () => T | Promise<T>): Promise<T> {
  const forced = take(errors, route)
  if (forced?.hangMs) await sleep(forced.hangMs, undefined, { ref: false })
  if (forced && !forced.applied) throw fail(forced)
  const out = await act()
  if (forced) throw fail(forced)
  return out
}
