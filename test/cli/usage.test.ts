/**
 * `till` without a Till: help on every command, usage errors (exit 2) that name the problem, and
 * an unreachable Till (exit 1 with the hint). The real binary, run as a child process.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { till } from '../helpers/cli.js'
import { refusedPort } from '../helpers/process.js'

const COMMANDS = [
  'merchants create', 'merchants show',
  'keys create', 'keys list', 'keys revoke',
  'providers add', 'providers list', 'providers update', 'providers enable', 'providers disable', 'providers default',
  'webhooks listen',
  'events list', 'events show', 'events resend',
]

test('--help on every command and subcommand (and -h) prints its usage with an example and exits 0', async () => {
  // -h once per group: it is the same flag to the parser.
  const short = ['merchants show', 'keys list', 'providers add', 'webhooks listen', 'events resend']
  const runs = [...COMMANDS.map((c) => [...c.split(' '), '--help']), ...short.map((c) => [...c.split(' '), '-h'])]
  const results = await Promise.all(runs.map((args) => till(args)))
  results.forEach((r, i) => {
    const name = runs[i].slice(0, 2).join(' ')
    assert.equal(r.code, 0, `${runs[i].join(' ')}: ${r.stderr}`)
    assert.ok(r.stdout.startsWith(`usage: till ${name}`), `${runs[i].join(' ')}:\n${r.stdout}`)
    assert.match(r.stdout, /\nexamples?:\n {2}(TILL_API_KEY=sk_test_… )?till /, runs[i].join(' '))
    assert.doesNotMatch(r.stdout, /--url\b/, `${runs[i].join(' ')}: Till's address is --till-url`)
    assert.equal(r.stderr, '')
  })
})

test('help for the whole tool, each group, start and the fake', async () => {
  const [top, help, topic, keys, start, fake, version] = await Promise.all([
    till(['--help']), till(['help']), till(['help', 'events']), till(['keys', '--help']), till(['start', '--help']),
    till(['fake', 'wechat', '--help']), till(['--version']),
  ])
  for (const r of [top, help, topic, keys, start, fake, version]) assert.equal(r.code, 0, r.stderr)
  assert.match(top.stdout, /^usage: till <command> \[<subcommand>\] \[options\]\n/)
  for (const group of ['start', 'merchants', 'keys', 'providers', 'webhooks', 'events', 'fake']) assert.match(top.stdout, new RegExp(`\\n  ${group} `))
  assert.match(top.stdout, /\n {15}add, list, update, enable, disable, default\n/)
  assert.equal(help.stdout, top.stdout)
  assert.match(topic.stdout, /^usage: till events <list\|show\|resend> \[options\]\n/)
  assert.match(keys.stdout, /^usage: till keys <create\|list\|revoke> \[options\]\n\n {2}create {3}create a secret key; prints it once\n/)
  assert.match(start.stdout, /^usage: till start\n/)
  assert.match(fake.stdout, /^usage: till fake wechat/)
  assert.equal(version.stdout, `${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`)
})

test('providers add --help lists every provider\'s credentials and settings, from its module', async () => {
  const { PROVIDERS } = await import('../../src/providers/index.js')
  const r = await till(['providers', 'add', '--help'])
  assert.equal(r.code, 0, r.stderr)
  for (const p of PROVIDERS) {
    assert.match(r.stdout, new RegExp(`--provider ${PROVIDERS.map((q) => q.id).join('\\|')} `))
    for (const f of [...p.credentials, ...p.settings]) assert.ok(r.stdout.includes(` ${f.name.padEnd(20)} `), `${p.id}.${f.name} in:\n${r.stdout}`)
  }
})

test('usage errors exit 2, name the problem and point to the help', async () => {
  const cases: [string[], string][] = [
    [[], 'till: missing command\nRun `till --help` for usage.\n'],
    [['nope'], 'till: unknown command "nope"\nRun `till --help` for usage.\n'],
    [['keys'], 'till keys: missing subcommand: create, list, revoke\nRun `till keys --help` for usage.\n'],
    [['keys', 'rotate'], 'till keys: unknown subcommand "rotate" (create, list, revoke)\nRun `till keys --help` for usage.\n'],
    [['keys', 'list', '--merchant', 'mer_x', '--bogus'], 'till keys list: unknown option --bogus\nRun `till keys list --help` for usage.\n'],
    [['keys', 'list'], 'till keys list: --merchant is required (the merchant id, mer_…)\nRun `till keys list --help` for usage.\n'],
    [['keys', 'list', '--merchant'], 'till keys list: --merchant needs a value\nRun `till keys list --help` for usage.\n'],
    [['keys', 'list', '--json=yes', '--merchant', 'mer_x'], 'till keys list: --json takes no value\nRun `till keys list --help` for usage.\n'],
    [['keys', 'create', '--merchant', 'mer_x', '--mode', 'prod'], 'till keys create: --mode must be test or live, not "prod"\nRun `till keys create --help` for usage.\n'],
    [['keys', 'create', '--merchant', 'acme', '--mode', 'test'], 'till keys create: --merchant must be an id starting with mer_, not "acme"\nRun `till keys create --help` for usage.\n'],
    [['keys', 'revoke', '--merchant', 'mer_x'], 'till keys revoke: missing KEY_ID\nRun `till keys revoke --help` for usage.\n'],
    [['keys', 'revoke', '--merchant', 'mer_x', 'key_1', 'key_2'], 'till keys revoke: unexpected argument "key_2"\nRun `till keys revoke --help` for usage.\n'],
    [['keys', 'revoke', '--merchant', 'mer_x', 'sk_test_abcdefghijklmnopqrstuvwxyz123456'], 'till keys revoke: KEY_ID must be an id starting with key_, not a secret\nRun `till keys revoke --help` for usage.\n'],
    [['merchants', 'create'], 'till merchants create: --name is required (the merchant\'s name)\nRun `till merchants create --help` for usage.\n'],
    [['providers', 'update', '--merchant', 'mer_x', 'pc_1'], 'till providers update: nothing to change: give --credentials-file, --settings or --label\nRun `till providers update --help` for usage.\n'],
    [['events', 'list', '--limit', '0'], 'till events list: --limit must be a whole number from 1 to 100, not "0"\nRun `till events list --help` for usage.\n'],
    [['events', 'list', '--type', 'payment.done'], 'till events list: --type must be one of payment.succeeded, payment.failed, session.canceled, session.expired, refund.pending, refund.succeeded, refund.failed, reconciliation.mismatches_found, payment.disputed, payment.dispute_closed, not "payment.done"\nRun `till events list --help` for usage.\n'],
    [['events', 'resend', 'we_1'], 'till events resend: EVENT_ID must be an id starting with evt_, not "we_1"\nRun `till events resend --help` for usage.\n'],
    [['webhooks', 'listen'], 'till webhooks listen: --forward-to is required (your local receiver, e.g. http://localhost:3000/hook)\nRun `till webhooks listen --help` for usage.\n'],
    // Without a scheme a URL means http (localhost:3000/hook); another scheme is refused.
    [['webhooks', 'listen', '--forward-to', 'ftp://localhost:3000'], 'till webhooks listen: --forward-to must be an absolute http(s) URL, not "ftp://localhost:3000"\nRun `till webhooks listen --help` for usage.\n'],
    [['webhooks', 'listen', '--forward-to', 'http://localhost:3000/hook', '--events', 'payment.succeeded,paid'], 'till webhooks listen: --events takes a comma-separated list of payment.succeeded, payment.failed, session.canceled, session.expired, refund.pending, refund.succeeded, refund.failed, reconciliation.mismatches_found, payment.disputed, payment.dispute_closed; not "paid"\nRun `till webhooks listen --help` for usage.\n'],
    [['start', '--port', '1'], 'till start: takes no arguments, got "--port"\nRun `till start --help` for usage.\n'],
  ]
  const results = await Promise.all(cases.map(([args]) => till(args, { env: { ADMIN_TOKEN: 'x', TILL_API_KEY: 'sk_test_x' } })))
  results.forEach((r, i) => {
    assert.equal(r.stderr, cases[i][1], cases[i][0].join(' '))
    assert.equal(r.code, 2, cases[i][0].join(' '))
    assert.equal(r.stdout, '')
  })
})

test('missing or malformed configuration is a usage error that says what to set', async () => {
  const noToken = await till(['keys', 'list', '--merchant', 'mer_x'])
  assert.equal(noToken.code, 2)
  assert.equal(noToken.stderr, 'till keys list: no admin token: set ADMIN_TOKEN (or ADMIN_TOKEN_FILE) to the value Till was started with, or pass --admin-token\nRun `till keys list --help` for usage.\n')

  const noKey = await till(['events', 'list'])
  assert.equal(noKey.code, 2)
  assert.match(noKey.stderr, /^till events list: no API key: set TILL_API_KEY to the merchant's secret key \(sk_test_… or sk_live_…\), or pass --api-key\n/)

  const notAKey = await till(['events', 'list', '--api-key', 'whsec_secretvalue'])
  assert.equal(notAKey.code, 2)
  assert.match(notAKey.stderr, /^till events list: the API key must be a secret key starting with sk_test_ or sk_live_\n/)
  assert.doesNotMatch(notAKey.stderr, /secretvalue/)

  const badUrl = await till(['events', 'list'], { env: { TILL_URL: 'localhost:8080', TILL_API_KEY: 'sk_test_x' } })
  assert.equal(badUrl.code, 2)
  assert.match(badUrl.stderr, /^till events list: TILL_URL must be an http\(s\) address such as http:\/\/localhost:8080, not "localhost:8080"\n/)

  const live = await till(['webhooks', 'listen', '--forward-to', 'http://localhost:3000/hook'], { env: { TILL_API_KEY: 'sk_live_x' } })
  assert.equal(live.code, 2)
  assert.match(live.stderr, /^till webhooks listen: webhooks listen forwards test-mode events only: use a test key \(sk_test_…\)\n/)
})

test('a Till that is not running: exit 1 with the address and the hint, for admin and merchant commands', async (t) => {
  const url = `http://127.0.0.1:${await refusedPort(t)}`
  const [admin, merchant, flag] = await Promise.all([
    till(['merchants', 'create', '--name', 'Acme'], { env: { TILL_URL: url, ADMIN_TOKEN: 'x' } }),
    till(['events', 'list'], { env: { TILL_URL: url, TILL_API_KEY: 'sk_test_x' } }),
    till(['keys', 'list', '--merchant', 'mer_x', '--till-url', `${url}/`, '--admin-token', 'x']),
  ])
  for (const r of [admin, merchant, flag]) {
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `error: cannot reach Till at ${url}: is it running? (set TILL_URL)\n`)
    assert.equal(r.stdout, '')
  }
})

test('--till-url is Till\'s address in every command\'s help; --url, its old name, still works and says it is deprecated', async (t) => {
  const url = `http://127.0.0.1:${await refusedPort(t)}`
  const [help, old, bad, both] = await Promise.all([
    till(['events', 'list', '--help']),
    till(['events', 'list', '--url', url], { env: { TILL_API_KEY: 'sk_test_x' } }),
    till(['events', 'list', '--till-url', 'localhost:8080'], { env: { TILL_API_KEY: 'sk_test_x' } }),
    till(['events', 'list', '--till-url', url, '--url', 'http://localhost:1'], { env: { TILL_API_KEY: 'sk_test_x' } }),
  ])
  assert.match(help.stdout, /\n {2}--till-url URL {14}Till's address \(default \$TILL_URL, else http:\/\/localhost:8080\)\n/)
  assert.doesNotMatch(help.stdout, /--url\b/)
  assert.equal(old.code, 1)
  assert.equal(old.stderr, `till: --url is deprecated: use --till-url (Till's address)\nerror: cannot reach Till at ${url}: is it running? (set TILL_URL)\n`)
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^till events list: --till-url must be an http\(s\) address such as http:\/\/localhost:8080, not "localhost:8080"\n/)
  assert.equal(both.code, 2)
  assert.match(both.stderr, /^till events list: give --till-url only \(--url is its deprecated name\)\n/)
})

test('something other than Till at TILL_URL: exit 1 saying so, not a confusing error', async (t) => {
  const server = http.createServer((req, res) => {
    if (req.url!.startsWith('/admin/')) res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>')
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => server.close(resolve)))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const [admin, merchant] = await Promise.all([
    till(['keys', 'list', '--merchant', 'mer_x'], { env: { TILL_URL: url, ADMIN_TOKEN: 'x' } }),
    till(['events', 'list'], { env: { TILL_URL: url, TILL_API_KEY: 'sk_test_x' } }),
  ])
  assert.equal(admin.code, 1)
  assert.equal(admin.stderr, `error: unexpected answer from ${url} (HTTP 404): is TILL_URL the address of a Till?\n`)
  assert.equal(merchant.code, 1)
  assert.equal(merchant.stderr, `error: unexpected answer from ${url}: is TILL_URL the address of a Till?\n`)
})
