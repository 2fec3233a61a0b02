/** The merchant cancels or expires a session over the API (docs/integrate.md#cancel-or-expire-a-session). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startAttempt } from '../../src/services/attempts.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { getSession } from '../helpers/merchant-api.js'
import { createSession, eventsWhere, sessionRow } from '../helpers/store-queries.js'

const close = (ta: TestApp, id: string, action: 'cancel' | 'expire', opts: { key?: string; idempotencyKey?: string; body?: unknown } = {}) =>
  ta.request('POST', `/api/v1/sessions/${id}/${action}`, {
    key: opts.key ?? ta.merchant.testKey, body: opts.body, headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
  })

const types = async (ta: TestApp, id: string) => (await eventsWhere(ta, 'sessionId', id)).map((e) => e.type)

test('cancel: an open session answers canceled, as a lookup shows it, and session.canceled goes out once', async (t) => {
  const ta = await startTestApp(t)
  const { id } = await createSession(ta)
  const res = await close(ta, id, 'cancel')
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.equal(res.body.status, 'canceled')
  assert.deepEqual(res.body, (await getSession(ta, id)).body)
  const again = await close(ta, id, 'cancel')
  assert.equal(again.status, 400)
  assert.deepEqual(again.body, { error: 'session is canceled', code: 'session_terminal' })
  assert.equal((await close(ta, id, 'expire')).body.code, 'session_terminal')
  assert.deepEqual(await types(ta, id), ['session.canceled'])
  const [event] = await eventsWhere(ta, 'sessionId', id)
  assert.equal(event.data.status, 'canceled')
})

test('expire: the session is expired now, its expiresAt moved to now, and session.expired goes out once', async (t) => {
  const ta = await startTestApp(t)
  const { id } = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 3600 })
  ta.clock.advance(5000)
  const res = await close(ta, id, 'expire', { body: {} })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.equal(res.body.status, 'expired')
  assert.equal(new Date(res.body.expiresAt).getTime(), ta.clock().getTime())
  assert.equal((await sessionRow(ta, id)).status, 'expired')
  assert.deepEqual((await close(ta, id, 'expire')).body, { error: 'session is expired', code: 'session_terminal' })
  assert.deepEqual(await types(ta, id), ['session.expired'])
})

test('a session already paid, or past its expiry, is refused with session_terminal and changes nothing', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  for (const action of ['cancel', 'expire'] as const) {
    const res = await close(ta, paid.id, action)
    assert.equal(res.status, 400)
    assert.deepEqual(res.body, { error: 'session is paid', code: 'session_terminal' })
  }
  assert.deepEqual(await types(ta, paid.id), ['payment.succeeded'])
  const { id } = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  ta.clock.advance(61_000)
  assert.deepEqual((await close(ta, id, 'cancel')).body, { error: 'session is expired', code: 'session_terminal' })
  assert.deepEqual(await types(ta, id), [])
})

test('the customer\'s open attempt is closed at the provider with the session', async (t) => {
  const ta = await startTestApp(t)
  const { id } = await createSession(ta)
  const { attempt } = await startAttempt(ta.deps, id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const res = await close(ta, id, 'cancel')
  assert.equal(res.body.status, 'canceled')
  const { rows } = await ta.database.pool.query('select status, next_check_at from attempts where id = $1', [attempt.id])
  assert.deepEqual(rows, [{ status: 'closed', next_check_at: null }])
})

test('scoped by merchant and mode: another merchant\'s session, or a test session with a live key, is not found and stays open', async (t) => {
  const ta = await startTestApp(t)
  const { id } = await createSession(ta)
  const other = await ta.newMerchant()
  for (const key of [other.testKey, ta.merchant.liveKey]) {
    const res = await close(ta, id, 'cancel', { key })
    assert.equal(res.status, 404)
    assert.equal(res.body.code, 'not_found')
  }
  assert.equal((await close(ta, 'sess_doesnotexist', 'expire')).status, 404)
  assert.equal((await sessionRow(ta, id)).status, 'pending')
})

test('idempotent: the same key and body replay the first answer; another request under the key is a mismatch', async (t) => {
  const ta = await startTestApp(t)
  const { id } = await createSession(ta)
  const first = await close(ta, id, 'cancel', { idempotencyKey: 'cancel-1' })
  assert.equal(first.status, 200)
  ta.clock.advance(1000)
  const replay = await close(ta, id, 'cancel', { idempotencyKey: 'cancel-1' })
  assert.equal(replay.status, 200)
  assert.equal(replay.headers.get('idempotent-replayed'), 'true')
  assert.equal(replay.text, first.text)
  const mismatch = await close(ta, id, 'expire', { idempotencyKey: 'cancel-1' })
  assert.equal(mismatch.body.code, 'idempotency_mismatch')
  assert.equal((await close(ta, id, 'cancel')).body.code, 'session_terminal')
  assert.deepEqual(await types(ta, id), ['session.canceled'])
})

test('concurrent cancels of one session: one answers canceled, the others session_terminal, one event', async (t) => {
  const ta = await startTestApp(t)
  const { id } = await createSession(ta)
  await startAttempt(ta.deps, id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const answers = await Promise.all([close(ta, id, 'cancel'), close(ta, id, 'cancel'), close(ta, id, 'expire')])
  const won = answers.filter((r) => r.status === 200)
  assert.equal(won.length, 1, JSON.stringify(answers.map((r) => r.body)))
  for (const r of answers.filter((r) => r.status !== 200)) assert.equal(r.body.code, 'session_terminal')
  assert.deepEqual(await types(ta, id), [won[0].body.status === 'canceled' ? 'session.canceled' : 'session.expired'])
})
