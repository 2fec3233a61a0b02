/**
 * Run as root, the embedded PostgreSQL runs as `postgres`, which cannot enter a mode-0700 directory
 * of root's (a home directory): Till stops before initdb with one sentence naming the directory and
 * the fix, not initdb's stack trace.
 */
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { startTill } from '../helpers/process.js'

test('a DATA_DIR the postgres user cannot reach stops Till with one clear sentence', { skip: process.getuid?.() !== 0 && 'only root runs the embedded PostgreSQL as another user' }, async (t) => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'till-home-'))
  chmodSync(home, 0o700)
  const dataDir = path.join(home, 'till', 'data')
  mkdirSync(dataDir, { recursive: true })
  t.after(() => rmSync(home, { recursive: true, force: true }))

  const till = await startTill(dataDir, {}, { wait: false })
  const { code } = await till.closed
  assert.equal(code, 1)
  const err = till.stderr().trim()
  assert.equal(err,
    `DATA_DIR ${dataDir} cannot be reached by the "postgres" user that runs the embedded PostgreSQL when Till runs as root ` +
    `(${home} does not let it in): set DATA_DIR to a directory outside it (for example /var/lib/till), ` +
    `let it through with \`chmod o+x ${home}\`, or set DATABASE_URL to a PostgreSQL server.`)
  assert.equal(existsSync(path.join(dataDir, 'pg', 'PG_VERSION')), false, 'initdb never ran')
})
