/**
 * The merchant's live Stripe, on the Stripe fake that runs beside Till (`till fake stripe`'s server):
 * an account at the fake, then a live provider configuration saved in Till with only its secret key
 * and settings.apiBase, so Till adds its own webhook endpoint at "Stripe" and keeps the signing secret
 * (docs/providers.md, Stripe). Also what a merchant reads back from Stripe: its API with the secret
 * key, and the fake's log of the requests Till made.
 */
import type { TillServer } from './till'

async function json(what: string, res: Response) {
  const body = await res.json() as any
  if (!res.ok) throw new Error(`${what}: ${res.status} ${JSON.stringify(body)}`)
  return body
}

const post = (url: string, body: object, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

/** Returns the account's secret key. */
export async function configureStripe(till: TillServer): Promise<string> {
  const { secretKey } = await json('adding an account at the Stripe fake', await post(`${till.stripeFakeUrl}/__fake/stripe/accounts`, {}))
  await json('saving the stripe configuration in Till', await post(`${till.baseUrl}/admin/v1/merchants/${till.merchantId}/provider_configs`,
    { provider: 'stripe', label: 'cards', credentials: { secretKey }, settings: { apiBase: till.stripeFakeUrl } },
    { authorization: `Bearer ${till.adminToken}` }))
  return secretKey as string
}

/** Stripe as the merchant sees it: its API with the account's secret key, and what Till asked of it. */
export function stripeAccount(fakeUrl: string, secretKey: string) {
  const get = async (path: string) => json(`GET ${path}`, await fetch(fakeUrl + path, { headers: { authorization: `Bearer ${secretKey}` } }))
  return {
    refunds: async (paymentIntent: string) => (await get(`/v1/refunds?payment_intent=${encodeURIComponent(paymentIntent)}`)).data as any[],
    checkoutSession: (id: string) => get(`/v1/checkout/sessions/${encodeURIComponent(id)}`),
    /** The API requests Till made, with their Idempotency-Key. */
    requests: async () => (await get('/__fake/stripe/requests')).requests as Array<{ method: string; path: string; idempotencyKey?: string; status: number }>,
    /** Stripe's webhook deliveries to Till, with the status Till answered. */
    deliveries: async () => (await get('/__fake/stripe/deliveries')).deliveries as Array<{ type: string; status: number | null; url: string }>,
  }
}
