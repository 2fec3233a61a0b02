/**
 * A Medusa store as a merchant would set it up, through Medusa's own CLI steps and admin API, and
 * a storefront's calls to its store API. Used with @medusajs/test-utils' medusaIntegrationTestRunner.
 */
import type { MedusaContainer } from '@medusajs/framework/types'
import { Modules } from '@medusajs/framework/utils'

export const PROVIDER_ID = 'pp_till_till'
export const RETURN_URL = 'http://localhost:8000/checkout/return'
/** The provider registered with Till's live key; live mode sends customers back to https pages only. */
export const LIVE_PROVIDER_ID = 'pp_till_till_live'
export const LIVE_RETURN_URL = 'https://shop.example.com/checkout/return'

// The runner's `api` is an axios instance bound to the Medusa it started.
type Api = {
  get(url: string, config?: object): Promise<{ status: number; data: any }>
  post(url: string, body?: object, config?: object): Promise<{ status: number; data: any }>
}

/** An admin user made as `medusa user -e … -p …` makes one, then logged in through the admin auth route. */
async function adminHeaders(api: Api, container: MedusaContainer) {
  const email = 'admin@till.test'
  const password = 'till-test-password'
  const workflows = container.resolve(Modules.WORKFLOW_ENGINE)
  const auth = container.resolve(Modules.AUTH)
  const { result: users } = await workflows.run('create-users-workflow', { input: { users: [{ email }] } })
  const { authIdentity, error } = await auth.register('emailpass', { body: { email, password } } as never)
  if (error || !authIdentity) throw new Error(`registering the admin failed: ${error}`)
  await auth.updateAuthIdentities({ id: authIdentity.id, app_metadata: { user_id: (users as Array<{ id: string }>)[0].id } })
  const { data } = await api.post('/auth/user/emailpass', { email, password })
  return { headers: { authorization: `Bearer ${data.token}` } }
}

export interface Store {
  admin: { headers: Record<string, string> }
  storefront: { headers: Record<string, string> }
  salesChannelId: string
  regions: { usd: string; jpy: string; hkd: string }
  variantId: string
}

/**
 * A sales channel, its publishable key, a USD and a JPY region paying through Till in test mode, a
 * HKD region paying through Till in live mode, and one published product.
 */
export async function setUpStore(api: Api, container: MedusaContainer): Promise<Store> {
  const admin = await adminHeaders(api, container)
  const { data: { sales_channel } } = await api.post('/admin/sales-channels', { name: 'Web' }, admin)
  const { data: { api_key } } = await api.post('/admin/api-keys', { title: 'Storefront', type: 'publishable' }, admin)
  await api.post(`/admin/api-keys/${api_key.id}/sales-channels`, { add: [sales_channel.id] }, admin)
  const region = async (name: string, currency_code: string, country: string, provider = PROVIDER_ID) =>
    (await api.post('/admin/regions', { name, currency_code, countries: [country], payment_providers: [provider] }, admin)).data.region.id as string
  const regions = { usd: await region('United States', 'usd', 'us'), jpy: await region('Japan', 'jpy', 'jp'), hkd: await region('Hong Kong', 'hkd', 'hk', LIVE_PROVIDER_ID) }
  const { data: { product } } = await api.post('/admin/products', {
    title: 'Blue mug',
    status: 'published',
    options: [{ title: 'Size', values: ['One size'] }],
    // A download: no inventory and no shipping profile, so the cart needs no shipping method.
    variants: [{
      title: 'One size', options: { Size: 'One size' }, manage_inventory: false,
      prices: [{ currency_code: 'usd', amount: 19.99 }, { currency_code: 'jpy', amount: 1500 }, { currency_code: 'hkd', amount: 158 }],
    }],
    sales_channels: [{ id: sales_channel.id }],
  }, admin)
  return {
    admin,
    storefront: { headers: { 'x-publishable-api-key': api_key.token } },
    salesChannelId: sales_channel.id,
    regions,
    variantId: product.variants[0].id,
  }
}

/** The storefront's checkout: a cart with the mug, its payment collection, and a Till payment session. */
export async function checkout(api: Api, store: Store, region: keyof Store['regions'], quantity = 1) {
  const { data: { cart } } = await api.post('/store/carts', {
    region_id: store.regions[region], sales_channel_id: store.salesChannelId, email: 'customer@till.test',
    items: [{ variant_id: store.variantId, quantity }],
  }, store.storefront)
  const session = await payWithTill(api, store, cart.id, region === 'hkd' ? 'live' : 'test')
  return { cart, session }
}

/** "Pay with Till" on the storefront: a new Till payment session for the cart (it replaces any earlier one). */
export async function payWithTill(api: Api, store: Store, cartId: string, mode: 'test' | 'live' = 'test') {
  const { data: { payment_collection } } = await api.post('/store/payment-collections', { cart_id: cartId }, store.storefront)
  const [provider_id, return_url] = mode === 'live' ? [LIVE_PROVIDER_ID, LIVE_RETURN_URL] : [PROVIDER_ID, RETURN_URL]
  const { data } = await api.post(`/store/payment-collections/${payment_collection.id}/payment-sessions`,
    { provider_id, data: { return_url } }, store.storefront)
  const sessions = data.payment_collection.payment_sessions as Array<{ id: string; status: string; data: Record<string, any> }>
  if (sessions.length !== 1) throw new Error(`expected one payment session, got ${sessions.length}`)
  return sessions[0]
}

export async function completeCart(api: Api, store: Store, cartId: string) {
  return (await api.post(`/store/carts/${cartId}/complete`, {}, store.storefront)).data
}

/** The order with its payments and their captures and refunds, as the admin reads it. */
export async function adminOrder(api: Api, store: Store, orderId: string) {
  const fields = 'id,total,currency_code,payment_status,*payment_collections,*payment_collections.payments,' +
    '*payment_collections.payments.captures,*payment_collections.payments.refunds'
  return (await api.get(`/admin/orders/${orderId}?fields=${fields}`, store.admin)).data.order
}

/** The order Medusa made from a cart, if any (the link Medusa keeps between them). */
export async function orderOfCart(container: MedusaContainer, cartId: string): Promise<string | undefined> {
  const query = container.resolve('query') as { graph(q: object): Promise<{ data: Array<{ order_id: string }> }> }
  const { data } = await query.graph({ entity: 'order_cart', fields: ['order_id'], filters: { cart_id: cartId } })
  return data[0]?.order_id
}

/**
 * Resolves when Medusa next finishes processing a payment webhook (its process-payment workflow),
 * with the workflow's final state and errors. Call it before the webhook can arrive.
 */
export async function nextWebhookProcessed(container: MedusaContainer): Promise<{ state: string; errors: unknown[] }> {
  const engine = container.resolve(Modules.WORKFLOW_ENGINE)
  const workflowId = 'process-payment-workflow'
  let resolve!: (e: { state: string; errors: unknown[] }) => void
  const finished = new Promise<{ state: string; errors: unknown[] }>((r) => { resolve = r })
  const subscriber = (e: { eventType: string; state: string; errors: unknown[] }) => {
    if (e.eventType !== 'onFinish') return
    void engine.unsubscribe({ workflowId, subscriberOrId: subscriber })
    resolve(e)
  }
  await engine.subscribe({ workflowId, subscriber })
  return finished
}
