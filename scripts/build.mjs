#!/usr/bin/env node
/**
 * Builds dist/, the JavaScript that `till` and `till start` run: every module of src/ (and of the
 * Node client's source, which the CLI imports as a package) compiled by esbuild, one file per
 * module in src/'s layout, with every other file of src/ (stylesheets, browser scripts,
 * migrations) copied beside them, so code that reads a file relative to import.meta.url finds it
 * in dist/ as in src/. esbuild only strips types: `npm test` runs tsc.
 *
 * dist/.inputs.json records the size and modification time of every input as they were when the
 * build began. In a checkout, bin/till.mjs compares it with the files on each run and rebuilds
 * when anything differs (a `git pull`, an edit), so a stale dist/ never runs. Builds are
 * serialized by a lock file, and one is renamed into place only when complete.
 *
 *   node scripts/build.mjs       npm run build; `npm ci` and `npm pack` run it as `prepare`
 */
import { cpSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const DIST = path.join(ROOT, 'dist')
const INPUTS_FILE = '.inputs.json'
const LOCK = path.join(ROOT, '.dist.lock')
/** Where the client's modules go in dist/, beside src/'s folders. */
const CLIENT_DIR = 'node-client'
/** Besides src/ and the client's source: what decides how they compile. */
const CONFIG_FILES = ['package.json', 'tsconfig.json', 'clients/js/package.json', 'scripts/build.mjs']

const files = (dir) => readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)))

/** Every file the build reads, relative to the root, sorted; tests are not built. */
function inputs() {
  const src = files('src').filter((f) => !f.endsWith('.test.ts'))
  return [...src, ...files('clients/js/src'), ...CONFIG_FILES].sort()
}

const stamp = (list) => JSON.stringify(list.map((f) => {
  const s = statSync(path.join(ROOT, f))
  return [f, s.size, s.mtimeMs]
}))

/** Whether dist/ was built from the inputs as they are now. */
export function isFresh() {
  let recorded
  try {
    recorded = readFileSync(path.join(DIST, INPUTS_FILE), 'utf8')
  } catch {
    return false
  }
  return recorded === stamp(inputs())
}

/** src/a/b.tsx → a/b; clients/js/src/c.ts → node-client/c (without extension, as esbuild's `out`). */
const outName = (file) => file.startsWith('src/')
  ? file.slice(4).replace(/\.tsx?$/, '')
  : path.join(CLIENT_DIR, path.relative('clients/js/src', file)).replace(/\.tsx?$/, '')

/**
 * The client's package specifiers (`@till-payments/node`, its `/request`) and the dist/ file each
 * becomes, from the till-source entries of its exports map (the TypeScript sources they name).
 */
function clientModules() {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'clients/js/package.json'), 'utf8'))
  return new Map(Object.entries(pkg.exports).filter(([, v]) => v?.['till-source']).map(([sub, v]) => [
    sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`,
    `${outName(path.join('clients/js', v['till-source']))}.js`,
  ]))
}

async function buildInto(out) {
  const list = inputs()
  // Taken before anything is read: a file changed during the build leaves dist/ stale, not wrongly fresh.
  const before = stamp(list)
  const { build } = await import('esbuild')
  const client = clientModules()
  const modules = list.filter((f) => /\.tsx?$/.test(f) && (f.startsWith('src/') || f.startsWith('clients/js/src/')))
  rmSync(out, { recursive: true, force: true })
  await build({
    absWorkingDir: ROOT,
    entryPoints: modules.map((f) => ({ in: f, out: outName(f) })),
    outdir: out,
    // bundle only so that the plugin sees every import: each stays an import of its own file.
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    sourcemap: true,
    logLevel: 'error',
    plugins: [{
      name: 'one-file-per-module',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === 'entry-point') return undefined
          const target = client.get(args.path)
          if (!target) return { path: args.path, external: true }
          // The client by package name, as the CLI imports it: its compiled copy in dist/.
          const from = path.dirname(outName(path.relative(ROOT, args.importer)))
          const rel = path.relative(from, target)
          return { path: rel.startsWith('.') ? rel : `./${rel}`, external: true }
        })
      },
    }],
  })
  for (const f of list.filter((f) => f.startsWith('src/') && !/\.tsx?$/.test(f))) {
    mkdirSync(path.dirname(path.join(out, f.slice(4))), { recursive: true })
    cpSync(path.join(ROOT, f), path.join(out, f.slice(4)))
  }
  writeFileSync(path.join(out, INPUTS_FILE), before)
}

/** Builds dist/ now, whatever its state: into a directory of its own, renamed into place when done. */
export async function build() {
  const tmp = `${DIST}.tmp-${process.pid}`
  const old = `${DIST}.old-${process.pid}`
  // Left by a build that was killed (builds hold the lock, so none is running).
  for (const f of readdirSync(ROOT)) if (/^dist\.(tmp|old)-\d+$/.test(f)) rmSync(path.join(ROOT, f), { recursive: true, force: true })
  try {
    await buildInto(tmp)
    try {
      renameSync(DIST, old)
    } catch (e) {
      if (e.code !== 'ENOENT') throw e
    }
    renameSync(tmp, DIST)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
    rmSync(old, { recursive: true, force: true })
  }
}

const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === 'EPERM'
  }
}

/** Runs fn holding the build lock; waits while another live process holds it. */
async function withLock(fn) {
  const mine = `${LOCK}.${process.pid}`
  writeFileSync(mine, String(process.pid))
  try {
    for (;;) {
      try {
        linkSync(mine, LOCK) // atomic, and the lock carries its holder's pid from the start
        break
      } catch (e) {
        if (e.code !== 'EEXIST') throw e
      }
      let holder
      try {
        holder = Number(readFileSync(LOCK, 'utf8'))
      } catch {
        continue // released meanwhile
      }
      if (!alive(holder)) {
        // Left by a build that was killed.
        rmSync(LOCK, { force: true })
        continue
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    unlinkSync(mine)
  }
  try {
    return await fn()
  } finally {
    rmSync(LOCK, { force: true })
  }
}

/**
 * Rebuilds dist/ when it is missing or older than its inputs (a checkout after `git pull`), then
 * returns. `say` is told when a build starts and ends (at a terminal).
 */
export async function ensureBuilt(say = () => {}) {
  if (isFresh()) return
  await withLock(async () => {
    if (isFresh()) return // built by the process that held the lock
    const started = Date.now()
    say('till: compiling (dist/ is missing or older than src/)…')
    await build()
    say(`till: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  })
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now()
  await withLock(build)
  console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
