/** The merchant calls tests make again and again, over HTTP with a key (the app's test key unless given). */
import type { TestApp } from './app.js'

/** POST /api/v1/refunds with this body. */
export const refund = (ta: TestApp, body: Record<string, unknown>, key = ta.merchant.testKey) =>
  ta.request('POST', '/api/v1/refunds', { key, body })

/** A refund of `recordId`: of `amount`, or of all that remains when it is omitted (an undefined field is not sent). */
export const refundRecord = (ta: TestApp, recordId: string, amount?: number, key = ta.merchant.testKey) =>
  refund(ta, { recordId, amount }, key)

/** GET /api/v1/sessions/:id, the whole response. */
export const getSession = (ta: TestApp, id: string, key = ta.merchant.testKey) =>
  ta.request('GET', `/api/v1/sessions/${id}`, { key })
