// Builds what npm publishes: dist/index.js, one CommonJS file (Medusa loads providers with
// require) with Till's JavaScript client (clients/js/src) bundled in, and the type declarations of
// this package and of the client beside it, under dist/types/, keeping their relative imports.
// `--js-only` skips the declarations (scripts/medusa.sh makes them beside the tests).
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { build } from 'esbuild'

rmSync('dist', { recursive: true, force: true })
await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['@medusajs/*'],
  logLevel: 'warning',
})
// tsc found as esbuild is, by Node's resolution: this package's devDependencies, or else Till's own
// (the checkout's root node_modules), so `npm ci --omit=dev` here (Medusa's framework alone) can pack.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
if (!process.argv.includes('--js-only')) execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
