/**
 * A real Till, as the Python and Go clients' tests start it: scripts/serve-for-clients.ts (the app on
 * a fresh database cloned from TEST_DATABASE_URL's template, with its background jobs, so webhooks are
 * delivered), stopped by closing its stdin. With the Stripe fake beside it (--stripe-fake), for live
 * mode; Till trusts the test certificate (test/fixtures/tls-cert.pem) of the https front that live
 * webhooks to Medusa need.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createInterface } from 'node:readline'

export const REPO = path.resolve(__dirname, '../../../..')
/** Self-signed for 127.0.0.1 and localhost: Till's own tests' certificate for live-mode https receivers. */
export const TEST_CERT = path.join(REPO, 'test/fixtures/tls-cert.pem')
export const TEST_KEY = path.join(REPO, 'test/fixtures/tls-key.pem')

export interface TillServer {
  baseUrl: string
  testKey: string
  liveKey: string
  adminToken: string
  merchantId: string
  stripeFakeUrl: string
  stop(): Promise<void>
}

export async function startTill(): Promise<TillServer> {
  const child = spawn('npx', ['tsx', 'scripts/serve-for-clients.ts', '--stripe-fake'], {
    cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_EXTRA_CA_CERTS: TEST_CERT },
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    exited.then((code) => reject(new Error(`scripts/serve-for-clients.ts exited (${code}) before printing its address`)))
  })
  const info = JSON.parse(firstLine) as Omit<TillServer, 'stop'>
  return {
    ...info,
    async stop() {
      child.stdin!.end()
      await exited
    },
  }
}
