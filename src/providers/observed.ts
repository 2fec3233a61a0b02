/**
 * Every call an adapter makes to its provider, observed at one place: the registry wraps each
 * adapter, so metrics (a histogram by provider, operation and outcome) and traces (a span per call)
 * see every provider and every caller without a line in either. Local work (parsing a
 * notification, checking a return signature, parsing kept statement files) is not a call.
 */
import type { StatementSource } from './statements.js'
import { ProviderError, type PaymentProvider } from './types.js'

/** `ok`, the provider's `rejected` or `unknown` (ProviderError), or `error` (anything else thrown). */
export type CallOutcome = 'ok' | 'rejected' | 'unknown' | 'error'

/** Told when a call starts; the function it answers is called once with the outcome, when the call ends. */
export type CallObserver = (provider: string, operation: string) => (outcome: CallOutcome, error?: unknown) => void

const CALLS = ['createAttempt', 'queryPayment', 'closePayment', 'refund', 'queryRefund', 'finishBrowserStep'] as const

export const outcomeOf = (e: unknown): CallOutcome => (e instanceof ProviderError ? e.outcome : 'error')

async function observe<T>(observers: CallObserver[], provider: string, operation: string, call: () => Promise<T>): Promise<T> {
  const ends = observers.map((o) => o(provider, operation))
  try {
    const result = await call()
    for (const end of ends) end('ok')
    return result
  } catch (e) {
    for (const end of ends) end(outcomeOf(e), e)
    throw e
  }
}

/**
 * The adapter with its provider calls observed; everything else (its own `this` included) as it was.
 * A method assigned through the wrapper later (a test's stand-in) replaces the observed one there.
 */
export function observed(adapter: PaymentProvider, ...observers: CallObserver[]): PaymentProvider {
  const calls = new Map<PropertyKey, unknown>()
  for (const name of CALLS) {
    const fn = adapter[name] as ((...args: unknown[]) => Promise<unknown>) | undefined
    if (fn) calls.set(name, (...args: unknown[]) => observe(observers, adapter.id, name, () => fn.apply(adapter, args)))
  }
  const statements = adapter.statements
  if (statements) {
    calls.set('statements', new Proxy(statements, {
      get: (target, p) => p === 'fetch'
        ? (cfg: Parameters<StatementSource['fetch']>[0], day: string) => observe(observers, adapter.id, 'fetchStatement', () => target.fetch(cfg, day))
        : Reflect.get(target, p, target),
    }))
  }
  return new Proxy(adapter, {
    get: (target, p) => (calls.has(p) ? calls.get(p) : Reflect.get(target, p, target)),
    set: (target, p, value) => (calls.has(p) ? (calls.set(p, value), true) : Reflect.set(target, p, value, target)),
  })
}
