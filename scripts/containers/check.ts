/**
 * What scripts/containers.sh checks on the compose stack, run on the host against both instances
 * (TILL_URLS). `first LOG`: the Demo merchant's block printed once among both instances' logs, and
 * with its key a session created and paid through the mock on each instance, each read back from
 * the other. `again LOG` (after everything was stopped and started): no second Demo block, the
 * sessions still paid, and a new one paid on each instance with the same key. State between the
 * two runs is kept in CHECK_STATE. Exits non-zero, saying what failed, at the first thing wrong.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'

const [phase, logFile] = process.argv.slice(2)
const urls = process.env.TILL_URLS!.split(' ')
const stateFile = process.env.CHECK_STATE!
const log = readFileSync(logFile, 'utf8')
const blocks = log.match(/Created merchant "Demo"/g)?.length ?? 0

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  assert.ok(res.ok, `${method} ${base}${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** A session created and paid through the mock on `base`, read back paid from `other`. */
async function payOn(base: string, other: string, key: string, order: string): Promise<string> {
  const created = await call(base, key, 'POST', '/api/v1/checkout', { amount: 9900, currency: 'CNY', metadata: { order } })
  const paid = await call(base, key, 'POST', `/api/v1/test_helpers/sessions/${created.id}/pay`, {})
  assert.equal(paid.status, 'paid', JSON.stringify(paid))
  assert.equal((await call(other, key, 'GET', `/api/v1/sessions/${created.id}`)).status, 'paid')
  console.log(`session ${created.id} created and paid on ${base}, read paid on ${other}`)
  return created.id
}

const other = (i: number) => urls[(i + 1) % urls.length]
if (phase === 'first') {
  assert.equal(blocks, 1, `the Demo block should be printed once among both instances, seen ${blocks} times:\n${log}`)
  const key = /test key: (sk_test_\S+)/.exec(log)![1]
  const sessions: string[] = []
  for (const [i, base] of urls.entries()) sessions.push(await payOn(base, other(i), key, `first-${i}`))
  writeFileSync(stateFile, JSON.stringify({ key, sessions }))
} else if (phase === 'again') {
  assert.equal(blocks, 0, `no Demo block after a restart on the same database:\n${log}`)
  const { key, sessions } = JSON.parse(readFileSync(stateFile, 'utf8')) as { key: string; sessions: string[] }
  for (const [i, id] of sessions.entries()) {
    assert.equal((await call(other(i), key, 'GET', `/api/v1/sessions/${id}`)).status, 'paid', `session ${id} after the restart`)
  }
  console.log(`after the restart: ${sessions.length} sessions still paid`)
  for (const [i, base] of urls.entries()) await payOn(base, other(i), key, `again-${i}`)
} else {
  throw new Error(`usage: check.ts first|again LOG`)
}
