/**
 * Till's states and events in Medusa's words. Till captures at once: a paid session is
 * `captured` for Medusa, which then records the capture itself and never calls capturePayment.
 */
import type { PaymentActions, PaymentSessionStatus } from '@medusajs/framework/types'
import type { SessionStatus } from '../../js/src/index.js'

/** A Till session's status as Medusa's payment session status. */
export function medusaStatus(status: SessionStatus): PaymentSessionStatus {
  switch (status) {
    case 'paid':
    case 'refunded': // refunded since, in Till's console: the payment still happened
      return 'captured'
    case 'pending':
    case 'processing': // the customer is paying at a provider: not known yet
      return 'pending'
    case 'failed':
      return 'error'
    case 'canceled':
    case 'expired':
      return 'canceled'
  }
}

/**
 * A Till event type as Medusa's webhook action. Medusa acts on `captured` (it authorizes the
 * session, records the capture and completes the cart when the customer never came back); refund
 * events have no action in Medusa, whose refunds are made from Medusa and answered synchronously.
 */
export function webhookAction(type: string): PaymentActions {
  switch (type) {
    case 'payment.succeeded':
      return 'captured'
    case 'payment.failed':
      return 'failed'
    case 'session.canceled':
    case 'session.expired':
      return 'canceled'
    default:
      return 'not_supported'
  }
}
