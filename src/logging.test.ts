import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { test } from 'node:test'
import { chooseLogFormat, createLogger } from './logging.js'

test('a terminal gets readable lines, anything else JSON; LOG_FORMAT overrides either way', () => {
  assert.equal(chooseLogFormat({}, true), 'pretty')
  assert.equal(chooseLogFormat({}, false), 'json')
  assert.equal(chooseLogFormat({}, undefined), 'json')
  assert.equal(chooseLogFormat({ LOG_FORMAT: 'json' }, true), 'json')
  assert.equal(chooseLogFormat({ LOG_FORMAT: 'PRETTY' }, false), 'pretty')
  assert.throws(() => chooseLogFormat({ LOG_FORMAT: 'yaml' }, true), /LOG_FORMAT must be json or pretty/)
})

function capture() {
  const stream = new PassThrough()
  let out = ''
  stream.on('data', (d) => (out += d))
  return { stream, text: () => out }
}

test('json: one parseable object per line, with the level and message', () => {
  const sink = capture()
  const log = createLogger('info', 'json', sink.stream)
  log.info({ sessionId: 'sess_1' }, 'session paid')
  log.debug('below the level')
  const lines = sink.text().trim().split('\n')
  assert.equal(lines.length, 1, sink.text())
  const line = JSON.parse(lines[0])
  assert.equal(line.level, 30)
  assert.equal(line.msg, 'session paid')
  assert.equal(line.sessionId, 'sess_1')
})

test('pretty: a readable line, not JSON, with the level word and the message', () => {
  const sink = capture()
  const log = createLogger('info', 'pretty', sink.stream)
  log.warn({ sessionId: 'sess_1' }, 'session paid late')
  const text = sink.text()
  assert.match(text, /WARN.*session paid late/)
  assert.match(text, /"sessionId":"sess_1"/)
  assert.throws(() => JSON.parse(text.split('\n')[0]))
})

test('credentials are redacted in both formats', () => {
  for (const format of ['json', 'pretty'] as const) {
    const sink = capture()
    createLogger('info', format, sink.stream).info({ req: { headers: { authorization: 'Bearer sk_test_secret' } }, user: { password: 'hunter2' } }, 'x')
    assert.doesNotMatch(sink.text(), /sk_test_secret|hunter2/, format)
    assert.match(sink.text(), /\[Redacted\]/, format)
  }
})

test('an error logged under err never prints the SQL parameters of a failed query, in either format, whoever logs it', () => {
  const pg = Object.assign(new Error('new row for relation "members" violates check constraint "x"'), { code: '23514', constraint: 'x' })
  const failed = Object.assign(new Error('Failed query: update members set password_hash = $1\nparams: scrypt$secret-hash'), {
    query: 'update members set password_hash = $1', params: ['scrypt$secret-hash'], cause: pg,
  })
  for (const format of ['json', 'pretty'] as const) {
    const sink = capture()
    createLogger('info', format, sink.stream).error({ err: failed }, 'console error')
    assert.doesNotMatch(sink.text(), /scrypt\$secret-hash|password_hash/, format)
    assert.match(sink.text(), /23514/, format)
  }
  // An error that is not a query's keeps its message.
  const sink = capture()
  createLogger('info', 'json', sink.stream).warn({ err: new Error('provider timed out') }, 'x')
  assert.equal(JSON.parse(sink.text()).err.message, 'provider timed out')
})
