#!/usr/bin/env node
// `till`: `till start` (and `till serve`) runs the service, every other command (merchants, keys,
// providers, webhooks, events, trigger, fake, --help) is the operator CLI in src/cli/main.ts. Both
// run compiled JavaScript from dist/, in this process. In a checkout (src/ is here), dist/ is
// rebuilt first when it is missing or older than its sources (scripts/build.mjs); an installed
// package ships dist/ alone.
import { existsSync } from 'node:fs'

const [cmd, ...args] = process.argv.slice(2)
if (existsSync(new URL('../src/', import.meta.url))) {
  const { ensureBuilt } = await import('../scripts/build.mjs')
  await ensureBuilt((line) => process.stderr.isTTY && process.stderr.write(`${line}\n`))
}
// Including `till start --help` and mistakes such as `till start --port 1`: usage, not a start.
const start = (cmd === 'start' || cmd === 'serve') && args.length === 0
await import(start ? '../dist/main.js' : '../dist/cli/main.js')
