import assert from 'node:assert/strict'
import { test } from 'node:test'
import { outageLog } from './outage-log.js'

function capture() {
  const lines: Array<{ level: string; obj: any; msg?: string }> = []
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj, msg })
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } }
}

test('a failure repeated every second for a minute is three warnings, then one line when it works again', () => {
  const { lines, log } = capture()
  let now = 0
  const out = outageLog(log, 30_000, () => now)
  for (let s = 0; s <= 60; s++, now = s * 1000) out.failed('listener', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'listener not connected')
  assert.deepEqual(lines.map((l) => [l.level, l.obj.heldBack ?? null]), [['warn', null], ['warn', 29], ['warn', 29]])
  assert.equal(lines[0].obj.err.code, 'ECONNREFUSED')
  now = 60_000
  out.ok('listener', 'listener connected again')
  out.ok('listener', 'listener connected again')
  assert.deepEqual(lines.slice(3).map((l) => [l.level, l.msg, l.obj.failedForMs]), [['info', 'listener connected again', 60_000]])
})

test('each kind is limited on its own, and a new outage is logged at once', () => {
  const { lines, log } = capture()
  let now = 0
  const out = outageLog(log, 30_000, () => now)
  out.failed('a', new Error('x'), 'a failed')
  out.failed('b', new Error('x'), 'b failed')
  out.failed('a', new Error('x'), 'a failed')
  out.ok('a', 'a back')
  now = 1000
  out.failed('a', new Error('x'), 'a failed')
  assert.deepEqual(lines.map((l) => l.msg), ['a failed', 'b failed', 'a back', 'a failed'])
})

test('a failed query is logged without its SQL text or parameters', () => {
  const { lines, log } = capture()
  const err = Object.assign(new Error('Failed query: delete from idempotency_keys\nparams: m_1,test,secret-key'), { query: 'delete from idempotency_keys', params: ['secret-key'] })
  outageLog(log).failed('release', err, 'not released')
  assert.doesNotMatch(JSON.stringify(lines), /secret-key|idempotency_keys/)
})
