/**
 * `till` runs compiled JavaScript from dist/ (scripts/build.mjs), and in a checkout never a stale
 * one: after a source changes (a `git pull`), the next run rebuilds first, once however many start
 * together. On a copy of the checkout's sources in a temporary directory, sharing node_modules.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { startTestApp } from '../helpers/app.js'
import { envFor } from '../helpers/cli.js'
import { ROOT } from '../helpers/process.js'

const run = promisify(execFile)

function checkout(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-build-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const f of ['src', 'bin', 'scripts/build.mjs', 'package.json', 'tsconfig.json', 'clients/js/src', 'clients/js/package.json']) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true })
    cpSync(path.join(ROOT, f), path.join(dir, f), { recursive: true })
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  return dir
}

const till = (dir: string, args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [path.join(dir, 'bin/till.mjs'), ...args], { cwd: os.tmpdir(), env: { PATH: process.env.PATH, ...env } })

/** A change as a `git pull` makes it: new contents, a new modification time. */
function edit(file: string, from: string, to: string) {
  const text = readFileSync(file, 'utf8')
  assert.ok(text.includes(from), `${file} has ${from}`)
  writeFileSync(file, text.replace(from, to))
}

test('after a source changes, till rebuilds dist/ once before running, even with several started at once', async (t) => {
  const dir = checkout(t)
  const inputs = path.join(dir, 'dist/.inputs.json')

  const first = await till(dir, ['--help'])
  assert.match(first.stdout, /\n {2}start {8}run Till in the foreground\n/)
  const built = statSync(inputs).mtimeMs
  await till(dir, ['--help'])
  assert.equal(statSync(inputs).mtimeMs, built, 'a fresh dist/ is not rebuilt')

  edit(path.join(dir, 'src/cli/main.ts'), 'run Till in the foreground', 'run Till in the foreground, as pulled')
  const runs = await Promise.all([1, 2, 3, 4].map(() => till(dir, ['--help'])))
  for (const r of runs) assert.match(r.stdout, /\n {2}start {8}run Till in the foreground, as pulled\n/)
  assert.notEqual(statSync(inputs).mtimeMs, built)
  assert.deepEqual(JSON.parse(readFileSync(inputs, 'utf8')).find(([f]: [string]) => f === 'src/cli/main.ts')[2], statSync(path.join(dir, 'src/cli/main.ts')).mtimeMs)
})

test('every kind of input makes dist/ stale: a module, a stylesheet, the client\'s source, the configuration', async (t) => {
  const dir = checkout(t)
  const build = await import(pathToFileURL(path.join(dir, 'scripts/build.mjs')).href)
  await build.build()
  assert.equal(build.isFresh(), true)
  const later = new Date(Date.now() + 60_000)
  for (const f of ['src/store/db.ts', 'src/pages/assets/till.css', 'src/store/migrations/0000_init.sql', 'clients/js/src/request.ts', 'tsconfig.json', 'package.json']) {
    utimesSync(path.join(dir, f), later, later)
    assert.equal(build.isFresh(), false, f)
    await build.build()
    assert.equal(build.isFresh(), true, f)
  }
  writeFileSync(path.join(dir, 'src/new-module.ts'), 'export {}\n')
  assert.equal(build.isFresh(), false, 'a new file')
})

test('the built command line talks to a real Till, with the client compiled into dist/', async (t) => {
  const dir = checkout(t)
  const ta = await startTestApp(t)
  const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1500, currency: 'JPY' } })
  const r = await till(dir, ['sessions', 'list', '--json'], envFor(ta))
  assert.deepEqual(JSON.parse(r.stdout).data.map((s: { id: string }) => s.id), [created.body.id])
  assert.match(readFileSync(path.join(dir, 'dist/cli/http.js'), 'utf8'), /from "\.\.\/node-client\/index\.js"/)
})
