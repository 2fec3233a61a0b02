/**
 * The package as a merchant installs it: build.mjs output under a node_modules/@till-payments/node of its
 * own, loaded by plain node with require() and import(), and type-checked from ESM and CommonJS
 * TypeScript. Also: the dist/ that `npm ci` built in this checkout is the current source's.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const pkgDir = fileURLToPath(new URL('..', import.meta.url))
const root = path.resolve(pkgDir, '../..')
const EXPORTS = [
  'AuthenticationError', 'ConflictError', 'DEFAULT_TOLERANCE_SECONDS', 'InvalidRequestError', 'NotFoundError', 'RateLimitError',
  'SIGNATURE_HEADER', 'Till', 'TillConnectionError', 'TillError', 'VERSION', 'WebhookVerificationError', 'constructEvent',
  'verifyWebhookSignature',
]

const tmp = mkdtempSync(path.join(tmpdir(), 'till-node-'))
const installed = path.join(tmp, 'node_modules', ...JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).name.split('/'))
mkdirSync(installed, { recursive: true })
copyFileSync(path.join(pkgDir, 'package.json'), path.join(installed, 'package.json'))
execFileSync(process.execPath, [path.join(pkgDir, 'build.mjs'), path.join(installed, 'dist')], { stdio: 'pipe' })
test.after(() => rmSync(tmp, { recursive: true, force: true }))

const node = (args: string[], cwd = tmp) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })

test('plain node can require() and import() it, and both give the same classes', () => {
  const cjs = node(['-e', `const t = require('@till-payments/node'); console.log(JSON.stringify({ keys: Object.keys(t).sort(), version: t.VERSION }))`])
  const version = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version
  assert.deepEqual(JSON.parse(cjs), { keys: EXPORTS, version })
  const esm = node(['--input-type=module', '-e', `
    import * as m from '@till-payments/node'
    import { createRequire } from 'node:module'
    const r = createRequire(import.meta.url)('@till-payments/node')
    const same = Object.keys(m).every((k) => m[k] === r[k])
    const till = new m.Till({ apiKey: 'sk_test_x' })
    console.log(JSON.stringify({ keys: Object.keys(m).sort(), same, verify: typeof m.Till.verifyWebhookSignature, pay: typeof till.testHelpers.sessions.pay }))`])
  assert.deepEqual(JSON.parse(esm), { keys: EXPORTS, same: true, verify: 'function', pay: 'function' })
})

test('the types resolve for ESM and CommonJS TypeScript consumers', () => {
  const files = ['esm.mts', 'cjs.cts'].map((f) => {
    copyFileSync(path.join(pkgDir, 'test', 'consumer', f), path.join(tmp, f))
    return path.join(tmp, f)
  })
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')],
  })
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  assert.deepEqual(diagnostics, [])
  // Each consumer reached the declarations its condition names in the exports map.
  const typeFiles = program.getSourceFiles().map((s) => path.relative(installed, s.fileName)).filter((f) => !f.startsWith('..'))
  assert.ok(typeFiles.includes(path.join('dist', 'index.d.ts')), 'import resolves dist/index.d.ts')
  assert.ok(typeFiles.includes(path.join('dist', 'cjs', 'index.d.ts')), 'require resolves dist/cjs/index.d.ts')
})

test('this checkout\'s dist/ (built by npm ci) is loadable and is the current source\'s', () => {
  const entry = createRequire(path.join(root, 'package.json')).resolve('@till-payments/node')
  assert.equal(entry, path.join(pkgDir, 'dist', 'cjs', 'index.js'))
  const list = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()
  const fresh = path.join(installed, 'dist')
  const current = path.join(pkgDir, 'dist')
  const stale = 'clients/js/dist is stale: run `npm run -w @till-payments/node build` (npm ci does it too)'
  assert.deepEqual(list(current), list(fresh), stale)
  for (const f of list(fresh)) assert.equal(readFileSync(path.join(current, f), 'utf8'), readFileSync(path.join(fresh, f), 'utf8'), `${f}: ${stale}`)
  assert.deepEqual(JSON.parse(node(['-e', `console.log(JSON.stringify(Object.keys(require('@till-payments/node')).sort()))`], root)), EXPORTS)
})
