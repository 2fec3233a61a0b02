#!/usr/bin/env node
// `till`: `till start` (and `till serve`) runs the service, `till fake …` a provider fake, and every other
// command (merchants, keys, providers, webhooks, events, --help) is the operator CLI in src/cli/main.ts.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const [cmd, ...args] = process.argv.slice(2)
const run = (entry, argv = []) => {
  // tsx resolved from Till's own node_modules, and compiling with Till's own tsconfig (JSX for the
  // pages) rather than whatever the working directory has, so `till` works from any directory.
  // The till-source condition resolves @till/node to its TypeScript source (clients/js/package.json),
  // so the CLI needs no build of the client, even after `npm ci --omit=dev`.
  const env = { ...process.env, TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') }
  const node = ['--conditions=till-source', '--import', import.meta.resolve('tsx')]
  const child = spawn(process.execPath, [...node, path.join(root, entry), ...argv], { stdio: 'inherit', env })
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code) => process.exit(code ?? 1))
}
if ((cmd === 'start' || cmd === 'serve') && args.length === 0) {
  run('src/main.ts')
} else if (cmd === 'fake') {
  // `till fake <provider> [options]`: the provider's local fake for offline tests (src/cli/fake.ts).
  run('src/cli/fake.ts', args)
} else {
  // Including `till start --help` and mistakes such as `till start --port 1`: usage, not a start.
  run('src/cli/main.ts', cmd === undefined ? [] : [cmd, ...args])
}
