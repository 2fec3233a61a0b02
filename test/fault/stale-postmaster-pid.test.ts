/**
 * The embedded cluster's start after a reboot: postmaster.pid survives it, and the pid it names may
 * now belong to an unrelated process. Till must neither signal that process (`pg_ctl stop`) nor
 * refuse to start: it removes the stale file and starts its own postmaster. startEmbedded is
 * called directly, as main does, without the rest of the service.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { startEmbedded } from '../../src/store/embedded.js'
import { alive, dataDir, postmasterPid } from '../helpers/process.js'

test('a postmaster.pid naming a pid another process now has: the start removes it and leaves that process alone', async (t) => {
  const dir = dataDir(t)
  const warnings: string[] = []
  const log = { info() {}, warn: (m: string) => void warnings.push(m) }
  const first = await startEmbedded(dir, log)
  const pidFile = path.join(dir, 'pg', 'postmaster.pid')
  const lockLines = readFileSync(pidFile, 'utf8').split('\n')
  await first.stop()
  assert.ok(!existsSync(pidFile))

  // After a reboot the old postmaster's pid may belong to anything: here a sleeping process.
  const other = spawn('sleep', ['300'], { stdio: 'ignore' })
  t.after(() => other.kill('SIGKILL'))
  await once(other, 'spawn')
  writeFileSync(pidFile, [String(other.pid), ...lockLines.slice(1)].join('\n'))

  const second = await startEmbedded(dir, log)
  const current = postmasterPid(dir)
  assert.ok(current && alive(current) && current !== other.pid, `the new postmaster runs (${current})`)
  assert.ok(alive(other.pid!), 'the process that took the pid was not signalled')
  assert.deepEqual(warnings, [`removing a stale ${pidFile}: pid ${other.pid} is now another process, not this cluster's PostgreSQL`])
  await second.stop()
  assert.ok(alive(other.pid!), 'nor at shutdown')
  assert.ok(!alive(current), 'the new postmaster stopped')
})
