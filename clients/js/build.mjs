// Builds dist/ from src/ with the TypeScript compiler API. Runs as the `prepare` script, which
// `npm ci` at the repository root runs for this workspace after every package is unpacked, so
// `typescript` (a root devDependency) resolves from the root node_modules.
//
// One implementation, two entry points (Node's "ES module wrapper" for dual packages):
//   dist/cjs/*.js     CommonJS, compiled once (dist/cjs/package.json says "type": "commonjs")
//   dist/index.js     ESM wrapper re-exporting the CommonJS build by name
// so `import` and `require` hand out the very same classes, and `instanceof TillError` holds
// even when both are loaded in one process.
//
// Usage: node build.mjs [outDir]   (default ./dist)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const outDir = path.resolve(process.argv[2] ?? path.join(here, 'dist'))

let ts
try {
  ts = require('typescript')
} catch {
  // An install without devDependencies (npm ci --omit=dev for the service) must not fail on the client.
  console.warn('@till-payments/node: typescript is not installed, dist/ was not built (run npm ci with devDependencies).')
  process.exit(0)
}

const configFile = path.join(here, 'tsconfig.json')
const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile)
if (error) fail([error])
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, here)
if (parsed.errors.length) fail(parsed.errors)

const cjsDir = path.join(outDir, 'cjs')
rmSync(outDir, { recursive: true, force: true })
mkdirSync(cjsDir, { recursive: true })
// Before compiling: the compiler decides the module format of .d.ts outputs by this file too.
writeFileSync(path.join(cjsDir, 'package.json'), '{ "type": "commonjs" }\n')

const program = ts.createProgram(parsed.fileNames, {
  ...parsed.options,
  outDir: cjsDir,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
})
const emitted = program.emit()
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]
if (diagnostics.length || emitted.emitSkipped) fail(diagnostics)

// Named exports listed explicitly, so the wrapper does not depend on Node detecting CommonJS exports.
const names = Object.keys(require(path.join(cjsDir, 'index.js'))).filter((n) => n !== '__esModule').sort()
writeFileSync(path.join(outDir, 'index.js'), [
  '// ESM entry of @till-payments/node: the CommonJS build, re-exported by name (see build.mjs).',
  "import cjs from './cjs/index.js'",
  `export const { ${names.join(', ')} } = cjs`,
  '',
].join('\n'))
writeFileSync(path.join(outDir, 'index.d.ts'), "export * from './cjs/index.js'\n")
console.log(`@till-payments/node: built ${path.relative(process.cwd(), outDir) || '.'} (${names.length} exports)`)

function fail(diags) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => here, getNewLine: () => '\n' }
  console.error(ts.formatDiagnosticsWithColorAndContext(diags, host))
  console.error('@till-payments/node: build failed')
  process.exit(1)
}
