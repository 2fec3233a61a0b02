#!/usr/bin/env node
// `till`: for now `till start` (and `till serve`) runs the service; more commands come with the CLI issue.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const [cmd] = process.argv.slice(2)
if (cmd === 'start' || cmd === 'serve') {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], { stdio: 'inherit' })
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code) => process.exit(code ?? 1))
} else {
  console.error('usage: till start')
  process.exit(cmd === '--help' || cmd === '-h' ? 0 : 2)
}
