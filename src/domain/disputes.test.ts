import assert from 'node:assert/strict'
import { test } from 'node:test'
import { disputeEvents, disputeMoves, disputeOutcome } from './disputes.js'

test('a dispute opened, then closed, sends payment.disputed once and payment.dispute_closed once', () => {
  assert.deepEqual(disputeEvents(null, 'needs_response'), ['payment.disputed'])
  assert.deepEqual(disputeEvents('needs_response', 'needs_response'), [])
  assert.deepEqual(disputeEvents('needs_response', 'under_review'), [])
  assert.deepEqual(disputeEvents('under_review', 'won'), ['payment.dispute_closed'])
  assert.deepEqual(disputeEvents('needs_response', 'lost'), ['payment.dispute_closed'])
  assert.deepEqual(disputeEvents('lost', 'lost'), [])
})

test('a dispute first seen closed sends both; a closed one never moves again', () => {
  assert.deepEqual(disputeEvents(null, 'won'), ['payment.disputed', 'payment.dispute_closed'])
  assert.deepEqual(disputeEvents('won', 'needs_response'), [])
  assert.deepEqual(disputeEvents('won', 'lost'), [])
  assert.equal(disputeMoves('won', 'under_review'), false)
  assert.equal(disputeMoves('needs_response', 'under_review'), true)
  assert.equal(disputeMoves('needs_response', 'needs_response'), false)
})

test('outcomes: won, lost, warning_closed and prevented close a dispute; the rest are open', () => {
  assert.deepEqual(['won', 'lost', 'warning_closed', 'prevented', 'needs_response', 'under_review', 'warning_needs_response', 'something_new'].map(disputeOutcome),
    ['won', 'lost', 'warning_closed', 'prevented', null, null, null, null])
})
