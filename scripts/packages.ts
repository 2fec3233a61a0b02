/**
 * Each package built as its registry would receive it, installed into an empty project as a
 * merchant installs it, and its README's example run against a real Till (issue #27). The blocks
 * run are the ones the READMEs mark `<!-- scripts/packages.ts runs this block -->`.
 *   @till-payments/node  `npm pack` → `npm install` of the .tgz → the Try it block, with node
 *   till-payments        the README's install block (python -m build, pip install of the wheel) in a
 *                        fresh virtual environment → the Try it block, with python
 *   the Go module        the files git tracks in clients/go, as ../till/clients/go → the README's
 *                        install block (go mod init, replace, go get) → the Try it block, go run
 *   @till-payments/till  `npm pack` → `npm install` of the .tgz → `till --help`, `till sessions
 *                        list` against the Till, and `till start` on its own embedded PostgreSQL
 *   @till-payments/medusa  the README's install block in a copy of the checkout: `npm ci --omit=dev`
 *                        (Medusa's framework only, no Medusa or Jest) and `npm pack` → the
 *                        tarball's provider loaded with require, as Medusa loads it
 * The Till is scripts/serve-for-clients.ts on TEST_DATABASE_URL (npm test sets it). Python is
 * PACKAGES_PYTHON, else the environment scripts/python-client.sh made, else python3.
 *   npx tsx scripts/packages.ts        (scripts/test.sh runs it with CI=true, or TEST_PACKAGES=1)
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { stopEmbedded } from '../src/store/embedded.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const WORK = mkdtempSync(path.join(os.tmpdir(), 'till-packages-'))
// As a project directory usually is: as root, the embedded PostgreSQL's binaries under
// node_modules run as the postgres user, who must be let through.
chmodSync(WORK, 0o755)
const exec = promisify(execFile)
const EXPECTED = 'partially_refunded 1000'

function fail(message: string): never {
  throw new Error(`packages: ${message}`)
}

async function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  try {
    const { stdout } = await exec(cmd, args, { cwd: opts.cwd ?? WORK, env: opts.env ?? process.env, maxBuffer: 64 << 20, timeout: 600_000 })
    return stdout
  } catch (e) {
    const err = e as Error & { stdout?: string; stderr?: string }
    fail(`${cmd} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`)
  }
}

/** The block the README marks to be run here, `nth` of them in the file (0 the first). */
function markedBlock(readme: string, lang: string, nth = 0): string {
  const text = readFileSync(path.join(ROOT, readme), 'utf8')
  const blocks = [...text.matchAll(/<!-- scripts\/packages\.ts runs this block -->\n```(\w+)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang).map((m) => m[2])
  return blocks[nth] ?? fail(`${readme} marks no ${lang} block number ${nth + 1} to run`)
}

/** The files of a tarball, without its leading package/. */
async function tarball(file: string): Promise<string[]> {
  return (await run('tar', ['-tzf', file])).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''))
}

function expectFiles(what: string, files: string[], present: string[], absent: RegExp) {
  const missing = present.filter((f) => !files.includes(f))
  if (missing.length) fail(`${what} lacks ${missing.join(', ')}`)
  const extra = files.filter((f) => absent.test(f))
  if (extra.length) fail(`${what} holds what it should not: ${extra.slice(0, 10).join(', ')}`)
}

function expectExample(what: string, output: string) {
  const last = output.trim().split('\n').at(-1)
  if (last !== EXPECTED) fail(`${what}: the example printed ${JSON.stringify(output)}, not a last line ${EXPECTED}`)
  console.log(`   ${what}: ${last}`)
}

/** A real Till for the examples: scripts/serve-for-clients.ts, until its stdin closes. */
async function startTill(): Promise<{ baseUrl: string; testKey: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/serve-for-clients.ts'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`serve-for-clients exited with ${code}`)))
  })
  return { ...JSON.parse(line), child }
}

async function npmPack(args: string[]): Promise<string> {
  // Before the JSON: what the package's prepare script (its build) printed.
  const out = await run('npm', ['pack', ...args, '--pack-destination', WORK, '--json'], { cwd: ROOT })
  const [{ filename }] = JSON.parse(/^\[$[\s\S]*/m.exec(out)?.[0] ?? fail(`npm pack printed no JSON:\n${out}`))
  return path.join(WORK, filename)
}

async function emptyNpmProject(name: string): Promise<string> {
  const dir = path.join(WORK, name)
  mkdirSync(dir)
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }))
  return dir
}

const npmInstall = (dir: string, tgz: string) =>
  run('npm', ['install', tgz, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir })

async function nodeClient(till: { baseUrl: string; testKey: string }) {
  console.log('== @till-payments/node: npm pack, npm install of the tarball, the README\'s Try it')
  const tgz = await npmPack(['-w', '@till-payments/node'])
  expectFiles(path.basename(tgz), await tarball(tgz), ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts'],
    /(^src\/|(?<!\.d)\.ts$|\.test\.)/)
  const shop = await emptyNpmProject('js-shop')
  await npmInstall(shop, tgz)
  writeFileSync(path.join(shop, 'try-till.mjs'), markedBlock('clients/js/README.md', 'js'))
  const env = { ...process.env, TILL_SECRET_KEY: till.testKey, TILL_BASE_URL: till.baseUrl }
  expectExample('node try-till.mjs', await run(process.execPath, ['try-till.mjs'], { cwd: shop, env }))
}

function pythonToRun(): string {
  if (process.env.PACKAGES_PYTHON) return process.env.PACKAGES_PYTHON
  const made = path.join(ROOT, '.test-data', 'py3.13', 'bin', 'python')
  return existsSync(made) ? made : 'python3'
}

/** The tracked files of a folder of this repository, copied to `to` (what a fetch of the repository gives). */
async function trackedCopy(folder: string, to: string) {
  for (const f of (await run('git', ['ls-files', '-z', folder], { cwd: ROOT })).split('\0').filter(Boolean)) {
    mkdirSync(path.dirname(path.join(to, f)), { recursive: true })
    cpSync(path.join(ROOT, f), path.join(to, f))
  }
}

async function pythonClient(till: { baseUrl: string; testKey: string }) {
  console.log('== till-payments: the README\'s install block (python -m build, pip install of the wheel) in a fresh venv, its Try it')
  const checkout = path.join(WORK, 'till')
  await trackedCopy('clients/python', checkout)
  const venv = path.join(WORK, 'py-shop')
  await run(pythonToRun(), ['-m', 'venv', venv])
  const env = { ...process.env, PATH: `${path.join(venv, 'bin')}${path.delimiter}${process.env.PATH}`, VIRTUAL_ENV: venv, PIP_DISABLE_PIP_VERSION_CHECK: '1' }
  await run('bash', ['-euc', markedBlock('clients/python/README.md', 'sh')], { env })
  const built = (await run('ls', ['wheels'])).split('\n').filter(Boolean).sort()
  if (built.join(' ') !== 'till_payments-0.1.0-py3-none-any.whl till_payments-0.1.0.tar.gz') fail(`python -m build wrote ${built.join(', ')}`)
  const wheel = (await run(path.join(venv, 'bin', 'python'), ['-m', 'zipfile', '-l', 'wheels/till_payments-0.1.0-py3-none-any.whl'])).split('\n').map((l) => l.split(/\s+/)[0])
  expectFiles('the wheel', wheel, ['till_payments/__init__.py', 'till_payments/py.typed', 'till_payments/_generated.py'], /^(tests|scripts)\//)
  writeFileSync(path.join(WORK, 'try_till.py'), markedBlock('clients/python/README.md', 'python'))
  expectExample('python try_till.py', await run(path.join(venv, 'bin', 'python'), ['try_till.py'], { env: { ...env, TILL_SECRET_KEY: till.testKey, TILL_BASE_URL: till.baseUrl } }))
}

async function goClient(till: { baseUrl: string; testKey: string }) {
  console.log('== the Go module: its tracked files, the README\'s install block (go mod init, replace, go get), its Try it')
  await trackedCopy('clients/go', path.join(WORK, 'till'))
  const env = { ...process.env, GOWORK: 'off', GOFLAGS: '' }
  await run('bash', ['-euc', markedBlock('clients/go/README.md', 'sh')], { env })
  const shop = path.join(WORK, 'my-shop')
  writeFileSync(path.join(shop, 'main.go'), markedBlock('clients/go/README.md', 'go'))
  expectExample('go run .', await run('go', ['run', '.'], { cwd: shop, env: { ...env, TILL_SECRET_KEY: till.testKey, TILL_BASE_URL: till.baseUrl } }))
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function server(till: { baseUrl: string; testKey: string }) {
  console.log('== @till-payments/till: npm pack, npm install of the tarball, till --help, a command against Till, till start')
  const tgz = await npmPack([])
  expectFiles(path.basename(tgz), await tarball(tgz), [
    'package.json', 'bin/till.mjs', 'dist/main.js', 'dist/cli/main.js', 'dist/node-client/index.js', 'dist/store/migrations/0000_init.sql',
    'dist/store/migrations/meta/_journal.json', 'dist/pages/assets/till.css', 'dist/console/assets/console.js', 'dist/providers/wechat/web/pay.js',
  ], /^(src|test|scripts|clients)\/|\.map$|\.test\.|\.inputs\.json$/)
  const shop = await emptyNpmProject('till-ops')
  await npmInstall(shop, tgz)
  const bin = path.join(shop, 'node_modules', '.bin', 'till')
  const help = await run(bin, ['--help'], { cwd: shop })
  if (!help.startsWith('usage: till <command>')) fail(`till --help printed ${JSON.stringify(help.slice(0, 200))}`)
  const listed = JSON.parse(await run(bin, ['sessions', 'list', '--json'], { cwd: shop, env: { ...process.env, TILL_URL: till.baseUrl, TILL_API_KEY: till.testKey } }))
  if (!Array.isArray(listed.data) || listed.data.length === 0) fail(`till sessions list found no session of the examples: ${JSON.stringify(listed)}`)
  console.log(`   till sessions list: ${listed.data.length} sessions`)

  // The server from the package alone: its migrations, pages and reference are in the tarball.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'till-packages-data-'))
  const port = await freePort()
  const child = spawn(bin, ['start'], {
    cwd: shop, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '' },
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  try {
    const base = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 180_000
    for (;;) {
      if (child.exitCode !== null) fail(`till start exited with ${child.exitCode}:\n${out}`)
      if ((await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) === 200) break
      if (Date.now() > deadline) fail(`till start was not ready within 180 s:\n${out}`)
      await new Promise((r) => setTimeout(r, 250))
    }
    const page = await fetch(`${base}/c/sess_000000000000000000000000`)
    const html = await page.text()
    if (page.status !== 404 || !/<html/.test(html)) fail(`the checkout page answered ${page.status}: ${html.slice(0, 300)}`)
    const css = /href="(\/assets\/till\.[0-9a-f]+\.css)"/.exec(html)?.[1] ?? fail('the page links no stylesheet')
    if ((await fetch(base + css)).status !== 200) fail(`${css} is not served`)
    if ((await fetch(`${base}/docs`)).status !== 200) fail('/docs is not served')
    console.log('   till start: ready; a page, its stylesheet and /docs served')
  } finally {
    child.kill('SIGTERM')
    const code = await exited
    await stopEmbedded(dataDir).catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
    if (code !== 0) console.error(`till start exited with ${code} on SIGTERM:\n${out}`)
  }
}

async function medusaPlugin() {
  console.log('== @till-payments/medusa: the README\'s install block, Medusa\'s framework alone installed, its provider loaded')
  // Inside the checkout, as the README's reader has it: the build's esbuild and tsc are Till's own.
  mkdirSync(path.join(ROOT, '.test-data'), { recursive: true })
  const copy = mkdtempSync(path.join(ROOT, '.test-data', 'medusa-pack-'))
  try {
    await trackedCopy('clients/medusa', copy)
    await trackedCopy('clients/js/src', copy)
    const block = markedBlock('clients/medusa/README.md', 'sh')
    const pack = /^cd till\/clients\/medusa && (.+?)\s+#/m.exec(block)?.[1] ?? fail(`the README's install block does not pack in till/clients/medusa:\n${block}`)
    const dir = path.join(copy, 'clients', 'medusa')
    await run('bash', ['-euc', pack], { cwd: dir })
    const installed = readdirSync(path.join(dir, 'node_modules', '@medusajs'))
    if (!installed.includes('framework')) fail('npm ci --omit=dev did not install @medusajs/framework')
    const heavy = ['@medusajs/medusa', '@medusajs/test-utils', 'jest', '@swc/core'].filter((p) => existsSync(path.join(dir, 'node_modules', p)))
    if (heavy.length) fail(`packing installed ${heavy.join(', ')}: more than the build compiles against`)
    const tgz = path.join(dir, 'till-payments-medusa-0.1.0.tgz')
    expectFiles(path.basename(tgz), await tarball(tgz), ['package.json', 'README.md', 'dist/index.js', 'dist/types/medusa/src/index.d.ts'], /^(src|test|integration-tests)\/|\.spec\./)
    const loaded = await run(process.execPath, ['-e', "const m = require('./dist/index.js'); console.log((m.default ?? m).services.map((s) => s.identifier).join())"], { cwd: dir })
    if (loaded.trim() !== 'till') fail(`the packed provider's identifiers are ${JSON.stringify(loaded)}`)
    console.log(`   npm ci --omit=dev: ${readdirSync(path.join(dir, 'node_modules')).length} top-level packages; provider "till" loads`)
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}

const till = await startTill()
try {
  await nodeClient(till)
  if (process.env.TEST_PYTHON !== '0') await pythonClient(till)
  await goClient(till)
  await server(till)
  await medusaPlugin()
} finally {
  till.child.stdin!.end()
  await new Promise((resolve) => till.child.once('exit', resolve))
  rmSync(WORK, { recursive: true, force: true })
}
