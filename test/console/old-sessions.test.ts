/**
 * A rolling upgrade across migration 0016 (docs/operate.md#upgrades): an instance of the release
 * before members still runs and opens console sessions without member_id. This release treats such a
 * session as signed out: back to sign-in, never as an owner, never a 500.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, signedIn } from '../helpers/console.js'

test('a session an older instance opened (no member_id) is signed out: GET, POST and the sessions list', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser: owner } = await signedIn(ta)
  // What the release before 0016 writes at sign-in: the merchant, no member.
  const token = randomBytes(32).toString('base64url')
  const csrf = randomBytes(32).toString('base64url')
  const now = ta.clock()
  await ta.database.pool.query(
    'insert into console_sessions (token_hash, merchant_id, csrf_token, created_at, last_seen_at, ip, user_agent) values ($1, $2, $3, $4, $4, $5, $6)',
    [createHash('sha256').update(token).digest('hex'), m.id, csrf, now, '127.0.0.1', 'OldTill/1.0'])
  const old = new ConsoleBrowser(ta)
  old.cookies.set('till_console', token)

  for (const path of ['/console/test/payments', '/console/test/members', '/console/live/keys', '/console/test/sessions']) {
    const page = await old.get(path)
    assert.equal(page.status, 303, path)
    assert.equal(page.location, `/console/login?notice=expired&next=${encodeURIComponent(path)}`)
  }
  for (const path of ['/console/test/members/invite', '/console/test/settings', '/console/logout']) {
    const res = await old.post(path, { csrf, email: 'x@example.com', role: 'admin' })
    assert.equal(res.status, 303, path)
    assert.equal(res.location, '/console/login?notice=expired')
  }
  const { rows } = await ta.database.pool.query('select count(*)::int as n from console_invitations')
  assert.equal(rows[0].n, 0, 'nothing done in its name')

  const sessions = await owner.get('/console/test/sessions')
  assert.equal(sessions.status, 200)
  assert.doesNotMatch(sessions.html, /OldTill/)
  // Signing in again from that browser works, and ends the old session.
  assert.equal((await old.signIn(m.email, m.password)).status, 303)
  assert.equal((await old.get('/console/test/payments')).status, 200)
})
