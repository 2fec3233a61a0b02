/**
 * `till merchants` and `till keys` against a real Till over HTTP: what they print, what Till then
 * holds, and Till's refusals shown with its own message and status (exit 1).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'

const KEY = (mode: string) => new RegExp(`^sk_${mode}_[0-9A-Za-z]{32}$`)

test('merchants create --json: the merchant with both keys, which work', async (t) => {
  const ta = await startTestApp(t)
  const r = await till(['merchants', 'create', '--name', 'Acme Shop', '--email', 'ops@acme.example', '--json'], { env: envFor(ta) })
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stderr, '')
  const m = JSON.parse(r.stdout)
  assert.deepEqual(Object.keys(m).sort(), ['email', 'id', 'keys', 'name'])
  assert.match(m.id, /^mer_[0-9A-Za-z]{24}$/)
  assert.equal(m.name, 'Acme Shop')
  assert.equal(m.email, 'ops@acme.example')
  assert.match(m.keys.test, KEY('test'))
  assert.match(m.keys.live, KEY('live'))
  assert.equal((await ta.admin('GET', `/merchants/${m.id}`)).body.name, 'Acme Shop')
  assert.equal((await ta.request('GET', '/api/v1/events', { key: m.keys.test })).status, 200)
  assert.equal((await ta.request('GET', '/api/v1/events', { key: m.keys.live })).status, 200)
})

test('merchants create prints the keys once for people; the password comes from stdin; show prints the merchant', async (t) => {
  const ta = await startTestApp(t)
  const r = await till(['merchants', 'create', '--name', 'Acme', '--email', 'a@acme.example', '--password-file', '-'], { env: envFor(ta), input: 'correct horse battery\n' })
  assert.equal(r.code, 0, r.stderr)
  const m = /^Created merchant "Acme" \((mer_\w+)\), console login a@acme\.example\.\n {2}test key: (sk_test_\w{32})\n {2}live key: (sk_live_\w{32})\nThese keys are shown only now: store them somewhere safe\.\n$/.exec(r.stdout)
  assert.ok(m, r.stdout)
  assert.equal((await ta.request('GET', '/api/v1/events', { key: m[2] })).status, 200)

  const shown = await till(['merchants', 'show', m[1]], { env: envFor(ta) })
  assert.equal(shown.code, 0, shown.stderr)
  assert.match(shown.stdout, new RegExp(`^${m[1]}  "Acme"  email a@acme\\.example  created \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`))
  assert.doesNotMatch(shown.stdout, /sk_/)

  // A password under 8 characters is refused by Till, with its message.
  const short = await till(['merchants', 'create', '--name', 'B', '--email', 'b@acme.example', '--password-file', '-'], { env: envFor(ta), input: 'short\n' })
  assert.equal(short.code, 1)
  assert.equal(short.stderr, 'error: password: must be at least 8 characters (HTTP 400)\n')
})

test('Till\'s refusals: exit 1 with the server\'s error text and status', async (t) => {
  const ta = await startTestApp(t)
  const badEmail = await till(['merchants', 'create', '--name', 'Acme', '--email', 'not-an-email'], { env: envFor(ta) })
  assert.equal(badEmail.code, 1)
  assert.equal(badEmail.stderr, 'error: email: must be an email address (HTTP 400)\n')
  assert.equal(badEmail.stdout, '')

  const wrongToken = await till(['keys', 'list', '--merchant', ta.merchant.id], { env: envFor(ta, { ADMIN_TOKEN: 'wrong' }) })
  assert.equal(wrongToken.code, 1)
  assert.equal(wrongToken.stderr, 'error: invalid admin token (HTTP 401)\nhint: ADMIN_TOKEN (or --admin-token) must be the ADMIN_TOKEN Till was started with\n')

  const unknown = await till(['keys', 'list', '--merchant', 'mer_000000000000000000000000'], { env: envFor(ta) })
  assert.equal(unknown.code, 1)
  assert.equal(unknown.stderr, 'error: Not found (HTTP 404)\nhint: check the ids; a Till started without ADMIN_TOKEN has no admin API at all\n')

  const badKey = await till(['events', 'list'], { env: envFor(ta, { TILL_API_KEY: 'sk_test_00000000000000000000000000000000' }) })
  assert.equal(badKey.code, 1)
  assert.equal(badKey.stderr, 'error: invalid API key (HTTP 401)\n')
})

test('keys create, list and revoke: the revoked key answers 401 over HTTP; list never shows a whole key', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const created = await till(['keys', 'create', '--merchant', ta.merchant.id, '--mode', 'test', '--json'], { env })
  assert.equal(created.code, 0, created.stderr)
  const key = JSON.parse(created.stdout)
  assert.deepEqual(Object.keys(key).sort(), ['id', 'key', 'mode'])
  assert.match(key.id, /^key_\w{24}$/)
  assert.equal(key.mode, 'test')
  assert.match(key.key, KEY('test'))
  assert.equal((await ta.request('GET', '/api/v1/events', { key: key.key })).status, 200)

  const human = await till(['keys', 'create', '--merchant', ta.merchant.id, '--mode', 'live'], { env })
  assert.equal(human.code, 0, human.stderr)
  assert.match(human.stdout, /^Created live key key_\w{24}:\n {2}sk_live_\w{32}\nThis key is shown only now: store it somewhere safe\.\n$/)

  const listed = await till(['keys', 'list', '--merchant', ta.merchant.id], { env })
  assert.equal(listed.code, 0, listed.stderr)
  const lines = listed.stdout.trimEnd().split('\n')
  assert.equal(lines[0], 'ID                            MODE  KEY            CREATED               REVOKED')
  assert.equal(lines.length, 5, listed.stdout) // the merchant's two keys and the two made here
  const row = lines.find((l) => l.startsWith(key.id))!
  assert.match(row, new RegExp(`^${key.id}  test  sk_test_…${key.key.slice(-4)}  \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  -$`))
  assert.doesNotMatch(listed.stdout, /sk_(test|live)_\w{5}/, 'only the last four characters of a key are shown')

  const revoked = await till(['keys', 'revoke', '--merchant', ta.merchant.id, key.id], { env })
  assert.equal(revoked.code, 0, revoked.stderr)
  assert.match(revoked.stdout, new RegExp(`^Revoked test key ${key.id} \\(at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\\.\\n$`))
  const after = await ta.request('GET', '/api/v1/events', { key: key.key })
  assert.equal(after.status, 401)
  assert.deepEqual(after.body, { error: 'invalid API key', code: 'invalid_api_key' })

  const json = await till(['keys', 'list', '--merchant', ta.merchant.id, '--json'], { env })
  assert.equal(json.code, 0, json.stderr)
  const entry = JSON.parse(json.stdout).data.find((k: { id: string }) => k.id === key.id)
  assert.equal(entry.last4, key.key.slice(-4))
  assert.match(entry.revokedAt, /^\d{4}-/)
  assert.equal(entry.key, undefined)

  // The same call through the flags instead of the environment.
  const flags = await till(['keys', 'list', '--merchant', ta.merchant.id, '--till-url', ta.baseUrl, '--admin-token', 'test-admin-token', '--json'])
  assert.equal(flags.code, 0, flags.stderr)
  assert.deepEqual(JSON.parse(flags.stdout), JSON.parse(json.stdout))

  const other = await till(['keys', 'revoke', '--merchant', ta.merchant.id, 'key_000000000000000000000000'], { env })
  assert.equal(other.code, 1)
  assert.match(other.stderr, /^error: Not found \(HTTP 404\)\n/)
})
