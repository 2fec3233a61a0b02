import assert from 'node:assert/strict'
import { test } from 'node:test'
import { relayLocation, type RelayOutcome } from './target.js'

const S = 'sess_AAAAAAAAAAAAAAAAAAAAAAAA'
const R = 'rec_BBBBBBBBBBBBBBBBBBBBBBBB'

test('relayLocation: successUrl gets session_id, record_id only when paid, and paid_confirmed', () => {
  const cases: [Partial<RelayOutcome>, string][] = [
    [{ status: 'paid', recordId: R, successUrl: 'https://shop.example/ok' }, `https://shop.example/ok?session_id=${S}&record_id=${R}&paid_confirmed=1`],
    [{ status: 'processing', recordId: null, successUrl: 'https://shop.example/ok' }, `https://shop.example/ok?session_id=${S}&paid_confirmed=0`],
    [{ status: 'canceled', recordId: null, successUrl: 'https://shop.example/ok' }, `https://shop.example/ok?session_id=${S}&paid_confirmed=0`],
    [{ status: 'expired', recordId: null, successUrl: 'https://shop.example/ok' }, `https://shop.example/ok?session_id=${S}&paid_confirmed=0`],
    [{ status: 'failed', recordId: null, successUrl: 'https://shop.example/ok' }, `https://shop.example/ok?session_id=${S}&paid_confirmed=0`],
    // Refunded after paying: the payment happened.
    [{ status: 'refunded', recordId: R, successUrl: 'https://shop.example/ok' }, `https://shop.example/ok?session_id=${S}&record_id=${R}&paid_confirmed=1`],
    // The merchant's parameters stay exactly as written, fragment included.
    [{ status: 'paid', recordId: R, successUrl: 'https://shop.example/ok?order=A%201&x=a+b&flag#top' }, `https://shop.example/ok?order=A%201&x=a+b&flag&session_id=${S}&record_id=${R}&paid_confirmed=1#top`],
    // Ours replace any parameter of the same name the merchant put there.
    [{ status: 'pending', recordId: null, successUrl: 'http://localhost:3000/r?paid_confirmed=1&record_id=x&session_id=y&k=v' }, `http://localhost:3000/r?k=v&session_id=${S}&paid_confirmed=0`],
  ]
  for (const [o, expected] of cases) {
    assert.equal(relayLocation({ sessionId: S, status: 'pending', recordId: null, successUrl: null, cancelUrl: null, ...o }), expected)
  }
})

test('relayLocation: without successUrl, the receipt when paid, otherwise the checkout page', () => {
  assert.equal(relayLocation({ sessionId: S, status: 'paid', recordId: R, successUrl: null, cancelUrl: null }), `/r/${R}`)
  assert.equal(relayLocation({ sessionId: S, status: 'refunded', recordId: R, successUrl: null, cancelUrl: null }), `/r/${R}`)
  for (const status of ['pending', 'processing', 'failed', 'canceled', 'expired'] as const) {
    assert.equal(relayLocation({ sessionId: S, status, recordId: null, successUrl: null, cancelUrl: null }), `/c/${S}`)
  }
})

test('relayLocation: with cancelUrl, a session that finished unpaid goes there with session_id; paid and still open ones as before', () => {
  const o = { sessionId: S, recordId: null, successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/cart?o=1' }
  for (const status of ['failed', 'canceled', 'expired'] as const) {
    assert.equal(relayLocation({ ...o, status }), `https://shop.example/cart?o=1&session_id=${S}`, status)
    assert.equal(relayLocation({ ...o, successUrl: null, status }), `https://shop.example/cart?o=1&session_id=${S}`, `${status} without successUrl`)
  }
  // Not finished: the payment may still be confirmed, so the spec's answer stands (paid_confirmed=0).
  assert.equal(relayLocation({ ...o, status: 'processing' }), `https://shop.example/ok?session_id=${S}&paid_confirmed=0`)
  assert.equal(relayLocation({ ...o, successUrl: null, status: 'pending' }), `/c/${S}`)
  assert.equal(relayLocation({ ...o, status: 'paid', recordId: R }), `https://shop.example/ok?session_id=${S}&record_id=${R}&paid_confirmed=1`)
})
