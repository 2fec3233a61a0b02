/**
 * /pay, /cancel, /expire and /fail fired at once on one session, many rounds: exactly one wins and
 * answers 200 with its event emitted; every other answers 400 `session is <status>`, never 200, never 5xx.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { createSession, eventsWhere, sessionRow } from '../helpers/store-queries.js'

const ACTIONS = ['pay', 'cancel', 'expire', 'fail'] as const
const OUTCOME = { pay: ['paid', 'payment.succeeded'], cancel: ['canceled', 'session.canceled'], expire: ['expired', 'session.expired'], fail: ['failed', 'payment.failed'] } as const

test('concurrent test helpers on one session: one winner with its event, the others a 400 naming the final status', async (t) => {
  const ta = await startTestApp(t)
  for (let round = 0; round < 40; round++) {
    const s = await createSession(ta, { amount: 1000 + round, currency: 'CNY' })
    // A different order each round, all in flight together.
    const order = ACTIONS.map((a, i) => ({ a, k: (i * 7 + round * 3) % 5 })).sort((x, y) => x.k - y.k).map((x) => x.a)
    const answers = await Promise.all(order.map(async (a) => ({ a, res: await ta.request('POST', `/api/v1/test_helpers/sessions/${s.id}/${a}`, { key: ta.merchant.testKey, body: {} }) })))
    const winners = answers.filter((x) => x.res.status === 200)
    assert.equal(winners.length, 1, `round ${round}: ${answers.map((x) => `${x.a}=${x.res.status}`).join(' ')}`)
    const [status, event] = OUTCOME[winners[0].a]
    assert.equal(winners[0].res.body.status, status, `round ${round}`)
    assert.equal((await sessionRow(ta, s.id)).status, status, `round ${round}`)
    const types = (await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type)
    assert.deepEqual(types, [event], `round ${round}`)
    for (const x of answers) {
      if (x === winners[0]) continue
      assert.equal(x.res.status, 400, `round ${round}: ${x.a} ${JSON.stringify(x.res.body)}`)
      assert.equal(x.res.body.error, `session is ${status}`, `round ${round}: ${x.a}`)
    }
  }
})
