/**
 * DATA_DIR belongs to one Till process at a time, as a child process on its own embedded PostgreSQL:
 * a live owner blocks a second start; a lock left by a pid now reused by another process does not.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { dataDir, startTill, stopTill } from '../helpers/process.js'

test('DATA_DIR is owned by one Till: a live one blocks a second, a stale lock (reused pid) does not', async (t) => {
  const dir = dataDir(t)
  const first = await startTill(dir)
  const second = await startTill(dir, {}, { wait: false })
  assert.equal((await second.closed).code, 1)
  assert.match(second.stderr(), /in use by another Till process/)
  assert.deepEqual(await stopTill(first), { code: 0, signal: null }, first.stderr())
  // After a reboot the recorded pid may belong to an unrelated live process (pid 1 here).
  writeFileSync(path.join(dir, 'till.pid'), '1 999999999\n')
  const third = await startTill(dir)
  const got = await fetch(`${third.base}/readyz`)
  assert.equal(got.status, 200)
  assert.deepEqual(await stopTill(third), { code: 0, signal: null }, third.stderr())
})
