/** `till sessions cancel|expire`: the real binary against a real Till, as the key's merchant and mode. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'
import { createSession, eventsWhere } from '../helpers/store-queries.js'

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ'

test('sessions cancel and expire close an open session; a closed or paid one is refused with Till\'s words', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const open = await createSession(ta, { amount: 1500, currency: 'JPY' })
  const canceled = await till(['sessions', 'cancel', open.id], { env })
  assert.equal(canceled.code, 0, canceled.stderr)
  assert.match(canceled.stdout, new RegExp(`^${open.id}  canceled  ¥1,500 JPY  test mode, expires ${TIME}\\n$`))
  assert.deepEqual((await eventsWhere(ta, 'sessionId', open.id)).map((e) => e.type), ['session.canceled'])
  const again = await till(['sessions', 'expire', open.id], { env })
  assert.equal(again.code, 1)
  assert.equal(again.stderr, 'error: session is canceled (HTTP 400)\n')

  const other = await createSession(ta)
  const expired = JSON.parse((await till(['sessions', 'expire', other.id, '--json'], { env })).stdout)
  assert.deepEqual([expired.id, expired.status], [other.id, 'expired'])

  const paid = await paidSession(ta)
  assert.equal((await till(['sessions', 'cancel', paid.id], { env })).stderr, 'error: session is paid (HTTP 400)\n')
  const live = await till(['sessions', 'cancel', paid.id], { env: envFor(ta, { TILL_API_KEY: ta.merchant.liveKey }) })
  assert.equal(live.stderr, 'error: Not found (HTTP 404)\n')
  assert.equal((await till(['sessions', 'cancel', paid.record.id], { env })).code, 2)
})
