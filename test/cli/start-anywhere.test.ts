/**
 * `till start` from a directory other than the repository (as `npm link` or an absolute path to
 * bin/till.mjs does it): the pages render (JSX compiled with Till's own settings, not the working
 * directory's), and a relative DATA_DIR is read from where the operator stands.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { freshDatabase, tillDatabaseEnv } from '../helpers/db.js'
import { dataDir, startTill, stopTill, type Till } from '../helpers/process.js'

test('till start from another directory serves its pages', async (t) => {
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'till-cwd-'))
  // A stranger's tsconfig in that directory must not change how Till compiles.
  writeFileSync(path.join(elsewhere, 'tsconfig.json'), JSON.stringify({ compilerOptions: { jsx: 'react' } }))
  const db = await freshDatabase()
  let till: Till | undefined
  t.after(async () => {
    // The bin forwards SIGTERM to the service it runs.
    if (till) await stopTill(till)
    await db.drop()
    rmSync(elsewhere, { recursive: true, force: true })
  })
  till = await startTill(dataDir(t), tillDatabaseEnv(db), { cwd: elsewhere })
  const page = await fetch(`${till.base}/c/sess_000000000000000000000000`)
  const html = await page.text()
  assert.equal(page.status, 404, html.slice(0, 300))
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
  assert.match(html, /<html/)
  assert.doesNotMatch(html, /React is not defined/)
})
