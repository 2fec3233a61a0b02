/** The provider's options from medusa-config.ts, checked when Medusa loads the provider. */
import { MedusaError } from '@medusajs/framework/utils'

export interface TillOptions {
  /** Where your Till is served, e.g. https://pay.example.com (without /api/v1). */
  baseUrl: string
  /** A secret key of your Till merchant: sk_test_… (test mode) or sk_live_… (live mode). */
  apiKey: string
  /** The signing secret (whsec_…) of the Till webhook endpoint that points at Medusa's /hooks/payment/till_<id>. */
  webhookSecret: string
  /** Where Till sends the customer back after paying when the storefront gives no `return_url`. */
  returnUrl?: string
  /** Shown to the customer on Till's checkout page (at most 200 characters). */
  description?: string
  /** How long a customer may take on Till's page, 60 to 86400 seconds (Till's default: 3600). */
  sessionTtlSeconds?: number
  /** How old a webhook's createdAt may be, in seconds (default 300, as Till's client libraries). */
  webhookToleranceSeconds?: number
  /** Per attempt of each call to Till, in milliseconds (default 10000). */
  timeoutMs?: number
}

const isHttpUrl = (v: unknown) => {
  if (typeof v !== 'string') return false
  try {
    return /^https?:$/.test(new URL(v).protocol)
  } catch {
    return false
  }
}
const isIntegerIn = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max

/** The first thing wrong with the options, in words a merchant can act on; null when they are fine. */
export function optionsProblem(o: Record<string, unknown>): string | null {
  if (!isHttpUrl(o.baseUrl)) return '`baseUrl` must be the http(s) address of your Till, e.g. https://pay.example.com'
  if (typeof o.apiKey !== 'string' || !/^sk_(test|live)_\S+$/.test(o.apiKey)) return '`apiKey` must be a Till secret key, sk_test_… or sk_live_…'
  if (typeof o.webhookSecret !== 'string' || !/^whsec_\S+$/.test(o.webhookSecret)) {
    return '`webhookSecret` must be the whsec_… secret of the Till webhook endpoint that points at Medusa (without it, a customer who pays and never returns leaves no order)'
  }
  if (o.returnUrl !== undefined && !isHttpUrl(o.returnUrl)) return '`returnUrl` must be an http(s) address'
  if (o.description !== undefined && (typeof o.description !== 'string' || o.description.length > 200)) return '`description` must be a string of at most 200 characters'
  if (o.sessionTtlSeconds !== undefined && !isIntegerIn(o.sessionTtlSeconds, 60, 86_400)) return '`sessionTtlSeconds` must be an integer from 60 to 86400'
  if (o.webhookToleranceSeconds !== undefined && !isIntegerIn(o.webhookToleranceSeconds, 1, 86_400)) return '`webhookToleranceSeconds` must be an integer from 1 to 86400'
  if (o.timeoutMs !== undefined && !isIntegerIn(o.timeoutMs, 1, 600_000)) return '`timeoutMs` must be an integer from 1 to 600000'
  return null
}

export function parseOptions(raw: unknown): TillOptions {
  const options = (raw ?? {}) as Record<string, unknown>
  const problem = optionsProblem(options)
  if (problem) throw new MedusaError(MedusaError.Types.INVALID_DATA, `Till payment provider: ${problem}`)
  return options as unknown as TillOptions
}
