/** `till activity` against a real Till over HTTP: the log's table and JSON, filters, paging hints, TILL_OPERATOR, usage errors. */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { ADMIN_TOKEN, startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'

const FINGERPRINT = `admin:${createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 8)}`

test('till activity lists a merchant\'s log newest first, filtered, with TILL_OPERATOR\'s name on what till changed', async (t) => {
  const ta = await startTestApp(t)
  const m = ta.merchant.id
  const made = await till(['keys', 'create', '--merchant', m, '--mode', 'test', '--json'], { env: envFor(ta, { TILL_OPERATOR: 'Grace Hopper' }) })
  assert.equal(made.code, 0, made.stderr)
  const key = JSON.parse(made.stdout)
  const env = envFor(ta)

  const json = await till(['activity', '--merchant', m, '--action', 'key_created', '--json'], { env })
  assert.equal(json.code, 0, json.stderr)
  const page = JSON.parse(json.stdout)
  assert.equal(page.data.length, 1)
  assert.deepEqual({ actor: page.data[0].actor, subject: page.data[0].subject, operator: page.data[0].detail.operator }, { actor: FINGERPRINT, subject: key.id, operator: 'Grace Hopper' })

  const text = await till(['activity', '--merchant', m, '--limit', '1'], { env })
  assert.equal(text.code, 0, text.stderr)
  const lines = text.stdout.split('\n')
  assert.match(lines[0], /^ID +TIME +MODE +ACTOR +ACTION +SUBJECT +ADDRESS$/)
  assert.match(lines[1], new RegExp(`^\\d+ +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ +test +${FINGERPRINT} +key_created +${key.id} +127\\.0\\.0\\.1$`))
  assert.match(text.stdout, new RegExp(`\\nMore: till activity --merchant ${m} --starting-after \\d+\\n$`), 'the merchant\'s creation is older')
  const after = /--starting-after (\d+)/.exec(text.stdout)![1]
  const older = await till(['activity', '--merchant', m, '--starting-after', after], { env })
  assert.match(older.stdout, /merchant_created/)
  assert.equal((await till(['activity', '--merchant', m, '--member', 'mem_nobody'], { env })).stdout, 'No activity.\n')

  const bad = await till(['activity', '--merchant', m, '--member', 'alice@example.com'], { env })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--member must be an id starting with mem_/)
  const refused = await till(['activity', '--merchant', m, '--action', 'drop_table'], { env })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /action: is not an action the activity log records \(HTTP 400\)/)
  const help = await till(['activity', '--help'])
  assert.match(help.stdout, /^usage: till activity --merchant ID/)
})
