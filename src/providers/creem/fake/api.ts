/**
 * The fake's /v1 API (docs/providers.md#testing-offline-till-fake-creem): products, checkouts, transactions and refunds, each
 * request checked as checks.ts describes and scoped to the account its API key names. Forced errors
 * (the `errors` knob) answer before or after acting, or late.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { withForcedError } from '../../fake-kit/forced-errors.js'
import { loggedBody } from '../../fake-kit/request-log.js'
import { PATHS, REFUND_TRANSACTION_FIELD } from '../constants.js'
import { apiRefund, refundable } from './actions.js'
import { authenticate, CHECKOUT_FIELDS, CreemError, PRODUCT_FIELDS, queryId, readBody, validateCheckout, validateProduct } from './checks.js'
import type { Notifier } from './notify.js'
import { damagedPage, searchableTransactions } from './statement.js'
import { creemId, type Account, type FakeStore } from './store.js'
import { checkoutView, productView, transactionView } from './views.js'

interface Ctx {
  account: Account
  req: FastifyRequest
  body: () => Record<string, any>
}

export function registerApi(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

  const handle = (route: string, allowed: readonly string[], fn: (c: Ctx) => unknown | Promise<unknown>) => async (req: FastifyRequest, reply: FastifyReply) => {
    let status = 200
    let out: unknown
    const raw = (req.body as Buffer | undefined) ?? Buffer.alloc(0)
    try {
      const account = authenticate(store, req.headers)
      const body = () => readBody(store, raw, allowed)
      out = await withForcedError(store.knobs.errors, route, (e) => new CreemError(e.status, [e.message]), () => fn({ account, req, body }))
    } catch (e) {
      if (!(e instanceof CreemError)) throw e
      status = e.status
      out = e.body(store.nowMs())
    }
    store.requests.push({ method: req.method, path: req.raw.url ?? req.url, request: loggedBody(raw), status, body: out, atMs: store.clock().getTime() })
    return reply.code(status).type('application/json').send(JSON.stringify(out))
  }

  const notFound = (what: string) => new CreemError(404, [`${what} not found`])

  app.post(PATHS.products, handle('createProduct', PRODUCT_FIELDS, ({ account, body }) => {
    const b = body()
    const problems = validateProduct(b)
    if (problems.length) throw new CreemError(400, problems)
    const p = {
      id: creemId('prod'), apiKey: account.apiKey, name: b.name, description: b.description ?? null, price: b.price, currency: b.currency,
      billingType: b.billing_type, billingPeriod: b.billing_period ?? null, taxMode: b.tax_mode ?? 'exclusive', taxCategory: b.tax_category ?? null,
      defaultSuccessUrl: b.default_success_url ?? null, createdAtMs: store.nowMs(),
    }
    store.products.set(p.id, p)
    return productView(p)
  }))

  // The SDK's products.get: GET /v1/products/{id}.
  app.get<{ Params: { id: string } }>(`${PATHS.products}/:id`, handle('getProduct', [], ({ account, req }) => {
    const p = store.owned(store.products, (req.params as { id: string }).id, account.apiKey)
    if (!p) throw notFound('Product')
    return productView(p)
  }))

  app.post(PATHS.checkouts, handle('createCheckout', CHECKOUT_FIELDS, ({ account, body }) => {
    const b = body()
    const problems = validateCheckout(b)
    if (problems.length) throw new CreemError(400, problems)
    const product = store.owned(store.products, b.product_id, account.apiKey)
    if (!product) throw notFound('Product')
    if (b.custom_price !== undefined && product.billingType !== 'onetime') throw new CreemError(400, ['custom_price is only supported for one-time payment products'])
    const c = {
      id: creemId('ch'), apiKey: account.apiKey, productId: product.id, requestId: b.request_id ?? null, units: b.units ?? 1, customPrice: b.custom_price ?? null,
      successUrl: b.success_url ?? null, metadata: b.metadata ?? null, customerEmail: b.customer?.email ?? null, status: 'pending' as const,
      orderId: null, customerId: null, failedTries: 0, createdAtMs: store.nowMs(),
    }
    store.checkouts.set(c.id, c)
    return checkoutView(store, c, baseUrl())
  }))

  app.get(PATHS.checkouts, handle('getCheckout', [], ({ account, req }) => {
    const c = store.owned(store.checkouts, queryId(req.query, 'checkout_id'), account.apiKey)
    if (!c) throw notFound('Checkout')
    return checkoutView(store, c, baseUrl())
  }))

  app.get(PATHS.transactions, handle('getTransaction', [], ({ account, req }) => {
    const t = store.owned(store.transactions, queryId(req.query, 'transaction_id'), account.apiKey)
    if (!t) throw notFound('Transaction')
    return transactionView(t)
  }))

  app.get(PATHS.transactionSearch, handle('searchTransactions', [], ({ account, req }) => {
    const q = req.query as Record<string, string | undefined>
    const size = Math.min(100, Math.max(1, Number(q.page_size ?? 10) || 10))
    const page = Math.max(1, Number(q.page_number ?? 1) || 1)
    // Unknown payments (a statement knob) have no order or customer here: they list under a product of their currency.
    const product = q.product_id ? store.owned(store.products, q.product_id, account.apiKey) : undefined
    const unknownIn = q.order_id || q.customer_id ? 'none' : q.product_id ? product?.currency ?? 'none' : 'any'
    const all = searchableTransactions(store, account.apiKey, (t) => (!q.order_id || t.orderId === q.order_id) && (!q.customer_id || t.customerId === q.customer_id)
      && (!q.product_id || store.orders.get(t.orderId)?.productId === q.product_id), unknownIn)
    const pages = Math.max(1, Math.ceil(all.length / size))
    return {
      items: damagedPage(store, all.slice((page - 1) * size, page * size)),
      pagination: { total_records: all.length, total_pages: pages, current_page: page, next_page: page < pages ? page + 1 : null, prev_page: page > 1 ? page - 1 : null },
    }
  }))

  /**
   * Full refunds only: everything that was left (§2.6). The answer is the SDK's RefundResponseEntity,
   * `{status}` and nothing else: no refund id, so the caller learns the refund's id from refund.created.
   */
  app.post(PATHS.refunds, handle('refund', [REFUND_TRANSACTION_FIELD], async ({ account, body }) => {
    const b = body()
    if (typeof b[REFUND_TRANSACTION_FIELD] !== 'string' || !b[REFUND_TRANSACTION_FIELD]) throw new CreemError(400, [`${REFUND_TRANSACTION_FIELD} must be a string`])
    const t = store.owned(store.transactions, b[REFUND_TRANSACTION_FIELD], account.apiKey)
    if (!t) throw notFound('Transaction')
    if (t.status === 'chargedBack') throw new CreemError(400, ['Transaction is disputed and cannot be refunded'])
    if (refundable(store, t) <= 0) throw new CreemError(400, ['Transaction has no refundable amount left'])
    return { status: (await apiRefund(store, notifier, t)).status }
  }))
}
