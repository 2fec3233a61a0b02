/**
 * Till's pg client (store/db.ts DbClient): its query timeout arms no timer per query. pg's own
 * `query_timeout` arms one for every query; with it, a GET under load left three times as much to the
 * old generation and young collections paused twice as long (docs/benchmarks.md, GET's p99). That the
 * timeout still ends a frozen server's connection: test/fault/frozen-database.test.ts.
 */
import assert from 'node:assert/strict'
import { createHook } from 'node:async_hooks'
import { test } from 'node:test'
import { QUERY_TIMEOUT_MS } from '../../src/store/db.js'
import { freshPool } from '../helpers/db.js'

test('queries on a connection arm no timer each, with the query timeout in force', async (t) => {
  const { pool } = await freshPool(t, 1, { direct: true })
  assert.ok(QUERY_TIMEOUT_MS > 0)
  const client = await pool.connect()
  await client.query('select 1')
  let timers = 0
  const hook = createHook({ init: (_id, type) => void (type === 'Timeout' && timers++) }).enable()
  try {
    for (let i = 0; i < 200; i++) await client.query({ name: 'one', text: 'select $1::int as n', values: [i] })
  } finally {
    hook.disable()
    client.release()
  }
  assert.equal(timers, 0)
})
