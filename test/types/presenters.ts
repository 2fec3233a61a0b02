/**
 * Compile-time only (`tsc --noEmit` reads it; no test runner does): each presenter's answer is exactly
 * its response schema's type, so a presenter that drifts from the schema fails the build.
 */
import type { Static, TSchema } from 'typebox'
import type {
  PaymentRecord, RecordSummary, RecordWithRefund, RecordWithRefunds, Refund, RefundObject, Session, SessionCreated,
} from '../../src/domain/resources.js'
import type {
  recordSummary, recordView, recordWithRefund, recordWithRefunds, refundObject, refundView, sessionCreated, sessionView,
} from '../../src/services/present.js'
import type { Delivery } from '../../src/api/events/schema.js'
import type { WebhookEndpoint } from '../../src/api/webhook-endpoints/schema.js'
import type { deliveryView } from '../../src/services/events.js'
import type { endpointView } from '../../src/services/webhook-endpoints.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
type Is<A, B extends TSchema> = Equal<ReturnType<A extends (...a: never[]) => unknown ? A : never>, Static<B>>

export const sameShapes: [
  Is<typeof sessionCreated, typeof SessionCreated>,
  Is<typeof sessionView, typeof Session>,
  Is<typeof recordSummary, typeof RecordSummary>,
  Is<typeof recordView, typeof PaymentRecord>,
  Is<typeof refundView, typeof Refund>,
  Is<typeof refundObject, typeof RefundObject>,
  Is<typeof recordWithRefunds, typeof RecordWithRefunds>,
  Is<typeof recordWithRefund, typeof RecordWithRefund>,
  Is<typeof endpointView, typeof WebhookEndpoint>,
  Is<typeof deliveryView, typeof Delivery>,
] = [true, true, true, true, true, true, true, true, true, true]

// The check bites: a field the schema lacks, a wrong type, or a nullable field left out do not type-check.
type RefundT = Static<typeof Refund>
declare const refund: RefundT
// @ts-expect-error a field the schema does not have
export const extra: RefundT = { ...refund, failureReason: null }
// @ts-expect-error an amount as a string
export const wrongType: RefundT = { ...refund, amount: '100' }
// @ts-expect-error providerRef is nullable, not optional: it must be present
export const missing: RefundT = { id: refund.id, amount: 1, status: 'succeeded', reason: null, createdAt: refund.createdAt }
// @ts-expect-error a presenter typed by a neighbouring schema is not the same shape
export const notSame: Is<typeof refundView, typeof RefundObject> = true
