/** `till fake <provider> --port 0 --json …` as a child process: its first stdout line (the printed configuration), and a stop. */
import { spawn } from 'node:child_process'
import type { LiveProviderId } from '../../src/providers/index.js'

export function runFakeCli<T>(provider: LiveProviderId, args: string[]): Promise<{ printed: T; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, ['bin/till.mjs', 'fake', provider, '--port', '0', '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d))
    child.stdout.on('data', (d: Buffer) => {
      out += d
      if (!out.includes('\n')) return
      resolve({ printed: JSON.parse(out.split('\n')[0]), stop: () => (child.kill('SIGTERM'), exited) })
    })
    child.on('exit', (code) => reject(new Error(`till fake ${provider} exited ${code}: ${err}`)))
  })
}
