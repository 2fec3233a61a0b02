/**
 * A real Till in test mode, as the Python and Go clients' tests start it: scripts/serve-for-clients.ts
 * (the app on a fresh database cloned from TEST_DATABASE_URL's template, with its background jobs,
 * so webhooks are delivered), stopped by closing its stdin.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createInterface } from 'node:readline'

export const REPO = path.resolve(__dirname, '../../../..')

export interface TillServer {
  baseUrl: string
  testKey: string
  liveKey: string
  stop(): Promise<void>
}

export async function startTill(): Promise<TillServer> {
  const child = spawn('npx', ['tsx', 'scripts/serve-for-clients.ts'], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    exited.then((code) => reject(new Error(`scripts/serve-for-clients.ts exited (${code}) before printing its address`)))
  })
  const info = JSON.parse(firstLine) as { baseUrl: string; testKey: string; liveKey: string }
  return {
    ...info,
    async stop() {
      child.stdin!.end()
      await exited
    },
  }
}
