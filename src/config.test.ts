import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { loadConfig, parseTrustProxy } from './config.js'

test('TRUST_PROXY: off when unset, a hop count, true, or a list of proxy addresses', () => {
  const cases: [string | undefined, boolean | number | string][] = [
    [undefined, false],
    ['', false],
    ['false', false],
    ['1', 1],
    ['2', 2],
    ['true', true],
    ['loopback', 'loopback'],
    ['127.0.0.1, 10.0.0.0/8', '127.0.0.1, 10.0.0.0/8'],
  ]
  for (const [value, expected] of cases) assert.equal(parseTrustProxy(value), expected, String(value))
  assert.equal(loadConfig({}).trustProxy, false)
  assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
})

test('TILL_DELIVERY_LEASE_MS and TILL_RELAY_WAIT_MS: defaults, values, and the relay never waits over 5 s', () => {
  assert.equal(loadConfig({}).deliveryLeaseMs, 60_000)
  assert.equal(loadConfig({}).relayWaitMs, 5000)
  assert.equal(loadConfig({ TILL_DELIVERY_LEASE_MS: '2000' }).deliveryLeaseMs, 2000)
  assert.equal(loadConfig({ TILL_RELAY_WAIT_MS: '0' }).relayWaitMs, 0)
  assert.equal(loadConfig({ TILL_RELAY_WAIT_MS: '250' }).relayWaitMs, 250)
  assert.throws(() => loadConfig({ TILL_RELAY_WAIT_MS: '5001' }), /TILL_RELAY_WAIT_MS must be a whole number of milliseconds from 0 to 5000/)
  assert.throws(() => loadConfig({ TILL_DELIVERY_LEASE_MS: '1.5s' }), /TILL_DELIVERY_LEASE_MS/)
  assert.throws(() => loadConfig({ TILL_DELIVERY_LEASE_MS: '10' }), /TILL_DELIVERY_LEASE_MS/)
})

test('TILL_WEBHOOK_DISABLE_AFTER_HOURS and TILL_WEBHOOK_DISABLE_MIN_FAILURES: 3 days and 10 attempts unless said; 0 hours never disables', () => {
  assert.deepEqual([loadConfig({}).webhookDisableAfterMs, loadConfig({}).webhookDisableMinFailures], [72 * 3600_000, 10])
  const set = loadConfig({ TILL_WEBHOOK_DISABLE_AFTER_HOURS: '24', TILL_WEBHOOK_DISABLE_MIN_FAILURES: '3' })
  assert.deepEqual([set.webhookDisableAfterMs, set.webhookDisableMinFailures], [24 * 3600_000, 3])
  assert.equal(loadConfig({ TILL_WEBHOOK_DISABLE_AFTER_HOURS: '0' }).webhookDisableAfterMs, 0)
  assert.throws(() => loadConfig({ TILL_WEBHOOK_DISABLE_AFTER_HOURS: '1.5' }), /TILL_WEBHOOK_DISABLE_AFTER_HOURS must be a whole number of hours from 0 to 8760/)
  assert.throws(() => loadConfig({ TILL_WEBHOOK_DISABLE_MIN_FAILURES: '0' }), /TILL_WEBHOOK_DISABLE_MIN_FAILURES must be a whole number of attempts from 1 to 1000/)
})

test('DATABASE_DIRECT_URL: behind a pooler statements go unnamed unless DATABASE_PREPARED_STATEMENTS says named', () => {
  const pooler = 'postgres://till@pgbouncer:6432/till'
  const direct = 'postgres://till@db:5432/till'
  assert.deepEqual([loadConfig({}).databaseDirectUrl, loadConfig({}).databaseStatements], [null, 'named'])
  assert.equal(loadConfig({ DATABASE_URL: pooler }).databaseStatements, 'named')
  const behind = loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct })
  assert.deepEqual([behind.databaseUrl, behind.databaseDirectUrl, behind.databaseStatements], [pooler, direct, 'unnamed'])
  assert.equal(loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct, DATABASE_PREPARED_STATEMENTS: 'named' }).databaseStatements, 'named')
  assert.throws(() => loadConfig({ DATABASE_URL: pooler, DATABASE_PREPARED_STATEMENTS: 'sometimes' }), /named or unnamed/)
  assert.throws(() => loadConfig({ DATABASE_DIRECT_URL: direct }), /needs DATABASE_URL/)
})

test('WEBHOOK_ALLOW_PRIVATE: 1 or 0; unset, on only when nobody but this machine reaches Till (HOST and BASE_URL on loopback)', () => {
  const allow = (env: NodeJS.ProcessEnv) => loadConfig(env).webhookAllowPrivate
  // A laptop: Till on loopback, reached as localhost.
  assert.equal(allow({}), true)
  for (const HOST of ['127.0.0.1', '::1', 'localhost', '127.0.0.2']) assert.equal(allow({ HOST }), true, HOST)
  assert.equal(allow({ BASE_URL: 'http://127.0.0.1:8080' }), true)
  assert.equal(allow({ BASE_URL: 'http://[::1]:8080' }), true)
  // Reachable from elsewhere: on every interface, or behind a proxy that serves a public address.
  for (const HOST of ['0.0.0.0', '::', '10.0.0.5', '203.0.113.7']) assert.equal(allow({ HOST }), false, HOST)
  assert.equal(allow({ BASE_URL: 'https://pay.example.com' }), false)
  assert.equal(allow({ HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE: '1' }), true)
  assert.equal(allow({ BASE_URL: 'https://pay.example.com', WEBHOOK_ALLOW_PRIVATE: '1' }), true)
  assert.equal(allow({ WEBHOOK_ALLOW_PRIVATE: '0' }), false)
  assert.equal(allow({ WEBHOOK_ALLOW_PRIVATE: '' }), true)
  assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }), /WEBHOOK_ALLOW_PRIVATE must be 0 or 1, got yes/)
})

test('each secret setting also reads from the file NAME_FILE names (a container secret), its final line break dropped', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-config-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text)
    return path.join(dir, name)
  }
  const c = loadConfig({
    DATABASE_URL_FILE: file('url', 'postgres://till:p%40ss@pgbouncer:6432/till\n'),
    DATABASE_DIRECT_URL_FILE: file('direct', 'postgres://till:p%40ss@postgres:5432/till'),
    SECRETS_KEY_FILE: file('key', 'a'.repeat(64) + '\r\n'),
    ADMIN_TOKEN_FILE: file('admin', 'admin secret\n'),
    METRICS_TOKEN_FILE: file('metrics', 'scrape-me\n'),
  })
  assert.deepEqual(
    [c.databaseUrl, c.databaseDirectUrl, c.databaseStatements, c.secretsKey, c.adminToken, c.metricsToken],
    ['postgres://till:p%40ss@pgbouncer:6432/till', 'postgres://till:p%40ss@postgres:5432/till', 'unnamed', 'a'.repeat(64), 'admin secret', 'scrape-me'],
  )
  // The plain variables still work, and an empty _FILE variable counts as unset.
  assert.equal(loadConfig({ ADMIN_TOKEN: 't', ADMIN_TOKEN_FILE: '' }).adminToken, 't')
  assert.throws(() => loadConfig({ ADMIN_TOKEN: 't', ADMIN_TOKEN_FILE: file('a2', 'u') }), /set ADMIN_TOKEN or ADMIN_TOKEN_FILE, not both/)
  assert.throws(() => loadConfig({ SECRETS_KEY_FILE: path.join(dir, 'missing') }), /SECRETS_KEY_FILE: cannot read .*missing \(ENOENT\)/)
  assert.throws(() => loadConfig({ METRICS_TOKEN_FILE: file('blank', '\n') }), /METRICS_TOKEN_FILE: .*blank is empty/)
  assert.throws(() => loadConfig({ DATABASE_DIRECT_URL_FILE: file('d2', 'postgres://x') }), /DATABASE_DIRECT_URL needs DATABASE_URL/)
})

test('SMTP_URL (or SMTP_URL_FILE) and MAIL_FROM: unset sends no email; set, both are checked at start', () => {
  assert.deepEqual([loadConfig({}).smtpUrl, loadConfig({}).mailFrom], [null, null])
  const c = loadConfig({ SMTP_URL: 'smtp://u:p@mail.example:587', MAIL_FROM: 'receipts@shop.example' })
  assert.deepEqual([c.smtpUrl, c.mailFrom], ['smtp://u:p@mail.example:587', 'receipts@shop.example'])
  assert.throws(() => loadConfig({ SMTP_URL: 'smtp://mail.example' }), /MAIL_FROM is needed/)
  assert.throws(() => loadConfig({ SMTP_URL: 'http://mail.example', MAIL_FROM: 'a@b.example' }), /SMTP_URL must be smtp:/)
  assert.throws(() => loadConfig({ SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'Shop <a@b.example>' }), /MAIL_FROM must be one email address/)
})
