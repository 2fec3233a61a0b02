import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  effectiveStatus,
  storedStatusesFor,
  isOpen,
  isTerminal,
  nextStatus,
  SESSION_STATUSES,
  type SessionStatus,
  type SessionTrigger,
} from './session-machine.js'

const TRIGGERS: SessionTrigger[] = ['start_attempt', 'confirm_paid', 'confirm_failed', 'cancel', 'expire', 'refund_full']

/** docs/architecture.md#the-state-machines, every (status, trigger) pair: null means the trigger does not apply. */
const TABLE: Record<SessionStatus, Record<SessionTrigger, SessionStatus | null>> = {
  pending: {
    start_attempt: 'processing', confirm_paid: 'paid', confirm_failed: 'failed',
    cancel: 'canceled', expire: 'expired', refund_full: null,
  },
  processing: {
    start_attempt: 'processing', confirm_paid: 'paid', confirm_failed: 'failed',
    cancel: 'canceled', expire: 'expired', refund_full: null,
  },
  paid: {
    start_attempt: null, confirm_paid: null, confirm_failed: null,
    cancel: null, expire: null, refund_full: 'refunded',
  },
  refunded: {
    start_attempt: null, confirm_paid: null, confirm_failed: null,
    cancel: null, expire: null, refund_full: null,
  },
  // Money that moved is never lost: a late confirmation still makes these paid.
  failed: {
    start_attempt: null, confirm_paid: 'paid', confirm_failed: null,
    cancel: null, expire: null, refund_full: null,
  },
  canceled: {
    start_attempt: null, confirm_paid: 'paid', confirm_failed: null,
    cancel: null, expire: null, refund_full: null,
  },
  expired: {
    start_attempt: null, confirm_paid: 'paid', confirm_failed: null,
    cancel: null, expire: null, refund_full: null,
  },
}

test('the table covers every status', () => {
  assert.deepEqual(Object.keys(TABLE).sort(), [...SESSION_STATUSES].sort())
})

for (const from of SESSION_STATUSES) {
  test(`nextStatus from ${from}`, () => {
    for (const trigger of TRIGGERS) {
      assert.equal(nextStatus(from, trigger), TABLE[from][trigger], `${from} --${trigger}-->`)
    }
  })
}

test('a late payment after expired, failed or canceled makes the session paid', () => {
  for (const from of ['expired', 'failed', 'canceled'] as const) assert.equal(nextStatus(from, 'confirm_paid'), 'paid', from)
})

test('paid and refunded sessions are never paid again', () => {
  for (const from of ['paid', 'refunded'] as const) assert.equal(nextStatus(from, 'confirm_paid'), null, from)
})

test('only pending and processing are open', () => {
  for (const s of SESSION_STATUSES) {
    const open = s === 'pending' || s === 'processing'
    assert.equal(isOpen(s), open, s)
    assert.equal(isTerminal(s), !open, s)
  }
})

test('effectiveStatus expires open sessions lazily, at exactly expiresAt', () => {
  const expiresAt = new Date('2026-11-21T09:30:00.000Z')
  const before = new Date(expiresAt.getTime() - 1)
  const at = new Date(expiresAt.getTime())
  const after = new Date(expiresAt.getTime() + 1)
  const cases: [SessionStatus, Date, SessionStatus][] = [
    ['pending', before, 'pending'],
    ['pending', at, 'expired'],
    ['pending', after, 'expired'],
    ['processing', before, 'processing'],
    ['processing', at, 'expired'],
    ['processing', after, 'expired'],
    ['paid', after, 'paid'],
    ['refunded', after, 'refunded'],
    ['failed', after, 'failed'],
    ['canceled', after, 'canceled'],
    ['expired', before, 'expired'],
  ]
  for (const [status, now, expected] of cases) {
    assert.equal(effectiveStatus(status, expiresAt, now), expected, `${status} at ${now.toISOString()}`)
  }
})

test('storedStatusesFor is the inverse of effectiveStatus: a stored row matches a status exactly when it reads as it', () => {
  const now = new Date('2026-11-21T10:00:00.000Z')
  for (const wanted of SESSION_STATUSES) {
    const branches = storedStatusesFor(wanted)
    for (const stored of SESSION_STATUSES) {
      for (const exp of [new Date(now.getTime() - 1), now, new Date(now.getTime() + 1)]) {
        const matches = branches.some((b) => b.status === stored && (b.expiry === undefined || (b.expiry === 'past') === (exp.getTime() <= now.getTime())))
        assert.equal(matches, effectiveStatus(stored, exp, now) === wanted, `${wanted} vs stored ${stored} expiring ${exp.toISOString()}`)
      }
    }
  }
})
