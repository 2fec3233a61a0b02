/**
 * What every `till fake <provider>` shares: the common options, the state file that
 * keeps generated credentials valid across restarts, and running until interrupted.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** parseArgs options every fake takes; `port` and the state file's name differ per fake. */
export const fakeOptions = (port: string, stateFile: string) =>
  ({
    port: { type: 'string', default: port },
    host: { type: 'string', default: '127.0.0.1' },
    'time-factor': { type: 'string', default: '1' },
    state: { type: 'string', default: path.join(process.env.DATA_DIR || './data', stateFile) },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  }) as const

export const readState = <T>(file: string): T | null => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null)

/** Owner-only: the state holds private keys and secrets. */
export function writeState(file: string, state: unknown) {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 })
}

/**
 * The credentials as a person copies them into the console: plain values on a line each, every PEM
 * printed as its block and written to `<prefix>-<name>.pem` beside the state file (owner-only) to
 * upload as a file.
 */
export function credentialsText(credentials: Record<string, unknown>, stateFile: string, prefix: string): string {
  const lines: string[] = []
  for (const [name, value] of Object.entries(credentials)) {
    if (typeof value !== 'string') continue
    if (!value.includes('-----BEGIN')) {
      lines.push(`  ${name}: ${value}`)
      continue
    }
    const file = path.join(path.dirname(stateFile), `${prefix}-${name}.pem`)
    writeFileSync(file, value.endsWith('\n') ? value : `${value}\n`, { mode: 0o600 })
    lines.push(`  ${name} (also in ${file}):`, value.trimEnd())
  }
  return lines.join('\n')
}

export const untilInterrupted = () =>
  new Promise<void>((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve())
  })
