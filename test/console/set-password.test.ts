/** `till merchants set-password` and its admin API: a login for a merchant without one, a reset that signs every session out. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'
import { ConsoleBrowser, merchantWithLogin } from '../helpers/console.js'
import { memberIdOf, memberWithRole, signedInOwner } from '../helpers/members.js'

test('set-password gives a merchant without a login one, and resets a password signing every session out', async (t) => {
  const ta = await startTestApp(t)
  const noEmail = await till(['merchants', 'set-password', ta.merchant.id, '--password-file', '-'], { env: envFor(ta), input: 'a long password\n' })
  assert.equal(noEmail.code, 1)
  assert.match(noEmail.stderr, /email: is required/)
  const set = await till(['merchants', 'set-password', ta.merchant.id, '--email', 'Ops@Acme.example', '--password-file', '-', '--json'], { env: envFor(ta), input: 'a long password\n' })
  assert.equal(set.code, 0, set.stderr)
  assert.deepEqual(JSON.parse(set.stdout), { id: ta.merchant.id, email: 'ops@acme.example', passwordSet: true })
  assert.equal((await new ConsoleBrowser(ta).signIn('ops@acme.example', 'a long password')).status, 303)

  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  await b.signIn(m.email, m.password)
  assert.equal((await b.get('/console/test/keys')).status, 200)
  const reset = await till(['merchants', 'set-password', m.id, '--password-file', '-'], { env: envFor(ta), input: 'another password\n' })
  assert.equal(reset.code, 0, reset.stderr)
  assert.match(reset.stdout, /^Console password set for shop@example\.com \(mer_\w+\)\. Every console session of this merchant was signed out\.\n$/)
  assert.equal((await b.get('/console/test/keys')).status, 303)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, m.password)).status, 401)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, 'another password')).status, 303)
  const short = await ta.admin('POST', `/merchants/${m.id}/password`, { password: 'short' })
  assert.deepEqual([short.status, short.body.error], [400, 'password: must be at least 8 characters'])
  assert.equal((await ta.admin('POST', '/merchants/mer_000000000000000000000000/password', { password: 'long enough' })).status, 404)
})

test('set-password refuses a login another merchant has, whatever its case, and changes nothing', async (t) => {
  const ta = await startTestApp(t)
  const owner = await merchantWithLogin(ta, 'Owner')
  const other = await merchantWithLogin(ta, 'Other')
  const res = await till(['merchants', 'set-password', other.id, '--email', owner.email.toUpperCase(), '--password-file', '-'], { env: envFor(ta), input: 'a long password\n' })
  assert.equal(res.code, 1)
  assert.match(res.stderr, /email is already in use \(HTTP 409/)
  assert.equal((await ta.admin('GET', `/merchants/${other.id}`)).body.email, other.email)
  assert.equal((await new ConsoleBrowser(ta).signIn(other.email, other.password)).status, 303)
  assert.equal((await new ConsoleBrowser(ta).signIn(owner.email, owner.password)).status, 303)
})

test('set-password with a member\'s email resets that member and makes them owner: the last owner\'s way back without mail', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner, m } = await signedInOwner(ta)
  const next = await memberWithRole(ta, owner, 'developer', 'next@example.com')
  const team = (await owner.get('/console/test/members')).html
  const nextId = memberIdOf(team, 'next@example.com')
  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${nextId}/transfer`)).status, 303)

  const set = await ta.admin('POST', `/merchants/${m.id}/password`, { password: 'the owner is back', email: 'Next@Example.com' })
  assert.equal(set.status, 200, JSON.stringify(set.body))
  assert.equal((await next.browser.get('/console/test/payments')).status, 303, 'signed out')
  const back = new ConsoleBrowser(ta)
  assert.equal((await back.signIn('next@example.com', 'the owner is back')).status, 303)
  assert.match((await back.get('/console/test/members')).html, /members\/invite/, 'still the owner')
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, m.password)).status, 303, 'the old login keeps its email and password')
})
