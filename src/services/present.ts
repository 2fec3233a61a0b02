/** Database rows → the API's shapes (docs/integrate.md#read-sessions-records-and-refunds). One place, used by the API, test helpers and pages. */
import { effectiveStatus, type SessionStatus } from '../domain/session-machine.js'
import type { RecordRow, RefundRow } from '../store/repos/records.js'
import type { SessionRow } from '../store/repos/sessions.js'

export const sessionUrl = (baseUrl: string, id: string) => `${baseUrl}/c/${id}`

export function sessionCreated(s: SessionRow, baseUrl: string) {
  return {
    id: s.id,
    status: s.status,
    url: sessionUrl(baseUrl, s.id),
    amount: s.amount,
    currency: s.currency,
    expiresAt: s.expiresAt.toISOString(),
    createdAt: s.createdAt.toISOString(),
    mode: s.mode,
    description: s.description,
    metadata: s.metadata,
  }
}

export function recordSummary(r: RecordRow) {
  return {
    id: r.id, provider: r.provider, providerRef: r.providerRef, amount: r.amount, refundedAmount: r.refundedAmount, status: r.status, paidAt: r.paidAt.toISOString(),
  }
}

export function sessionView(s: SessionRow, record: RecordRow | null, baseUrl: string, now: Date) {
  return {
    ...sessionCreated(s, baseUrl),
    status: effectiveStatus(s.status as SessionStatus, s.expiresAt, now),
    chosenProvider: s.mode === 'test' ? 'mock' : s.chosenProvider,
    ...(record ? { record: recordSummary(record) } : {}),
  }
}

export function refundView(f: RefundRow) {
  return {
    id: f.id,
    amount: f.amount,
    status: f.status,
    providerRef: f.providerRef,
    reason: f.reason,
    createdAt: f.createdAt.toISOString(),
  }
}

export function recordView(r: RecordRow) {
  return {
    id: r.id,
    sessionId: r.sessionId,
    provider: r.provider,
    providerRef: r.providerRef,
    amount: r.amount,
    refundedAmount: r.refundedAmount,
    currency: r.currency,
    status: r.status,
    mode: r.mode,
    paidAt: r.paidAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
  }
}

/** A refund read on its own (GET /refunds/{id}, lists, a record's `refunds`): it names its record. */
export const refundObject = (f: RefundRow) => ({ ...refundView(f), recordId: f.recordId })

/** A record read back: with every refund made on it, newest first. */
export const recordWithRefunds = (r: RecordRow, fs: RefundRow[]) => ({ ...recordView(r), refunds: fs.map(refundObject) })

export const recordWithRefund = (r: RecordRow, f: RefundRow) => ({ ...recordView(r), refund: refundView(f) })
