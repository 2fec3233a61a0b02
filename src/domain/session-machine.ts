/** Session state machine (docs/architecture.md#the-state-machines). Pure: callers persist what it decides. */
export const SESSION_STATUSES = ['pending', 'processing', 'paid', 'refunded', 'failed', 'canceled', 'expired'] as const
export type SessionStatus = (typeof SESSION_STATUSES)[number]

export const OPEN_STATUSES: readonly SessionStatus[] = ['pending', 'processing']
export const isOpen = (s: SessionStatus) => OPEN_STATUSES.includes(s)
export const isTerminal = (s: SessionStatus) => !isOpen(s)

export type SessionTrigger = 'start_attempt' | 'confirm_paid' | 'confirm_failed' | 'cancel' | 'expire' | 'refund_full'

/**
 * Next status, or null when the trigger does not apply. A payment confirmation after the session
 * expired, failed or was canceled still makes it paid: money that moved is never lost.
 */
export function nextStatus(from: SessionStatus, trigger: SessionTrigger): SessionStatus | null {
  switch (trigger) {
    case 'start_attempt':
      return isOpen(from) ? 'processing' : null
    case 'confirm_paid':
      return from === 'paid' || from === 'refunded' ? null : 'paid'
    case 'confirm_failed':
      return isOpen(from) ? 'failed' : null
    case 'cancel':
      return isOpen(from) ? 'canceled' : null
    case 'expire':
      return isOpen(from) ? 'expired' : null
    case 'refund_full':
      return from === 'paid' ? 'refunded' : null
  }
}

/** What a reader sees: an open session past its expiry reads as expired before the sweep stores it. */
export function effectiveStatus(status: SessionStatus, expiresAt: Date, now: Date): SessionStatus {
  return isOpen(status) && expiresAt.getTime() <= now.getTime() ? 'expired' : status
}

export const EXPIRY_DEFAULT_SECONDS = 3600
export const EXPIRY_MIN_SECONDS = 60
export const EXPIRY_MAX_SECONDS = 86400

/**
 * The stored rows a reader's status stands for, the inverse of effectiveStatus: `expired` is also an
 * open row past its expiry, and `pending` or `processing` only an open row not past it. `expiry`
 * says which side of expiresAt the row must be on, when it matters.
 */
export function storedStatusesFor(status: SessionStatus): { status: SessionStatus; expiry?: 'future' | 'past' }[] {
  if (isOpen(status)) return [{ status, expiry: 'future' }]
  if (status === 'expired') return [{ status }, ...OPEN_STATUSES.map((s) => ({ status: s, expiry: 'past' as const }))]
  return [{ status }]
}
