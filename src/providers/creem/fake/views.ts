/**
 * The fake's objects as Creem's API and webhooks show them (docs/providers.md#creem-creem): snake_case,
 * cents, ISO strings for products, customers and orders, epoch milliseconds for transactions,
 * refunds and events, ids or expanded objects where Creem uses each.
 */
import type { Checkout, Customer, FakeStore, Order, Product, Refund, Transaction } from './store.js'

const MODE = 'test'
const iso = (ms: number) => new Date(ms).toISOString()

export function productView(p: Product) {
  return {
    // No image_url or product_url: the SDK's ProductEntity allows a string or absence, never null.
    id: p.id, object: 'product', name: p.name, description: p.description ?? '', price: p.price, currency: p.currency,
    billing_type: p.billingType, billing_period: p.billingPeriod ?? 'once', status: 'active', tax_mode: p.taxMode,
    tax_category: p.taxCategory ?? 'saas', default_success_url: p.defaultSuccessUrl,
    created_at: iso(p.createdAtMs), updated_at: iso(p.createdAtMs), mode: MODE,
  }
}

export function customerView(c: Customer) {
  return { id: c.id, object: 'customer', email: c.email, name: c.name, country: c.country, created_at: iso(c.createdAtMs), updated_at: iso(c.createdAtMs), mode: MODE }
}

export function orderView(o: Order) {
  return {
    id: o.id, object: 'order', customer: o.customerId, product: o.productId, transaction: o.transactionId,
    amount: o.subTotal, sub_total: o.subTotal, tax_amount: o.taxAmount, discount_amount: 0, amount_due: o.amountPaid, amount_paid: o.amountPaid,
    currency: o.currency, status: 'paid', type: o.type, created_at: iso(o.createdAtMs), updated_at: iso(o.createdAtMs), mode: MODE,
  }
}

export function transactionView(t: Transaction) {
  return {
    id: t.id, object: 'transaction', amount: t.amount, amount_paid: t.amountPaid, discount_amount: 0, currency: t.currency, type: 'payment',
    tax_country: t.taxCountry, tax_amount: t.taxAmount, status: t.status, refunded_amount: t.refundedAmount, order: t.orderId,
    subscription: null, customer: t.customerId, description: 'One-time payment', created_at: t.createdAtMs, mode: MODE,
  }
}

/** CheckoutEntity. `expand` gives the product and customer as objects, as checkout.completed carries them. */
export function checkoutView(store: FakeStore, c: Checkout, baseUrl: string, expand = false) {
  const product = store.products.get(c.productId)!
  const order = c.orderId ? store.orders.get(c.orderId) : undefined
  const customer = c.customerId ? store.customers.get(c.customerId) : undefined
  const view: Record<string, unknown> = {
    id: c.id, object: 'checkout', mode: MODE, status: c.status, request_id: c.requestId ?? undefined,
    product: expand ? productView(product) : product.id, units: c.units, ...(c.customPrice === null ? {} : { custom_price: c.customPrice }), custom_fields: [],
    checkout_url: `${baseUrl}/test/checkout/${product.id}/${c.id}`, success_url: c.successUrl ?? undefined,
    metadata: c.metadata ?? undefined,
  }
  if (order) view.order = orderView(order)
  if (customer) view.customer = expand ? customerView(customer) : customer.id
  return view
}

/** The checkout inside refund.created and dispute.created: its product as an id, as CheckoutEntity requires one. */
function embeddedCheckout(c: Checkout) {
  return {
    id: c.id, object: 'checkout', request_id: c.requestId ?? undefined, product: c.productId, units: c.units,
    ...(c.customPrice === null ? {} : { custom_price: c.customPrice }), custom_fields: [], status: c.status, metadata: c.metadata ?? undefined, mode: MODE,
  }
}

/** refund.created's object and POST /v1/refunds' answer: the refund with its transaction, checkout, order and customer. */
export function refundView(store: FakeStore, r: Refund) {
  const t = store.transactions.get(r.transactionId)!
  const checkout = store.checkouts.get(t.checkoutId)!
  const order = store.orders.get(t.orderId)!
  const customer = store.customers.get(t.customerId)!
  return {
    id: r.id, object: 'refund', status: r.status, refund_amount: r.amount, refund_currency: r.currency, reason: r.reason,
    transaction: transactionView(t),
    checkout: embeddedCheckout(checkout),
    order: orderView(order), customer: customerView(customer), created_at: r.createdAtMs, mode: MODE,
  }
}

export function disputeView(store: FakeStore, id: string, t: Transaction, createdAtMs: number) {
  const checkout = store.checkouts.get(t.checkoutId)!
  return {
    id, object: 'dispute', amount: t.amountPaid, currency: t.currency, transaction: transactionView(t),
    checkout: embeddedCheckout(checkout),
    order: orderView(store.orders.get(t.orderId)!), customer: customerView(store.customers.get(t.customerId)!), created_at: createdAtMs, mode: MODE,
  }
}
