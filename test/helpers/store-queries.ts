/** Reading the store directly from tests: what a merchant would be told (events) and what was kept (rows). */
import type { TestApp } from './app.js'

export interface StoredEvent {
  type: string
  data: Record<string, any>
}

/** Events in the outbox whose data names this session / record / refund, oldest first. */
export async function eventsWhere(ta: TestApp, field: 'sessionId' | 'recordId' | 'refundId', id: string): Promise<StoredEvent[]> {
  const { rows } = await ta.database.pool.query(
    'select type, data from events where data->>$1 = $2 order by created_at, type',
    [field, id],
  )
  return rows
}

export async function sessionRow(ta: TestApp, id: string): Promise<Record<string, any>> {
  const { rows } = await ta.database.pool.query('select * from sessions where id = $1', [id])
  return rows[0]
}

export async function refundRows(ta: TestApp, recordId: string): Promise<Record<string, any>[]> {
  const { rows } = await ta.database.pool.query('select * from refunds where record_id = $1 order by created_at, id', [recordId])
  return rows
}

export async function recordRow(ta: TestApp, id: string): Promise<Record<string, any>> {
  const { rows } = await ta.database.pool.query('select * from records where id = $1', [id])
  return rows[0]
}

/** Creates a test-mode session and returns the create response body. */
export async function createSession(ta: TestApp, body: Record<string, unknown> = { amount: 1000, currency: 'CNY' }, key = ta.merchant.testKey) {
  const res = await ta.request('POST', '/api/v1/checkout', { key, body })
  if (res.status !== 200) throw new Error(`checkout failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
