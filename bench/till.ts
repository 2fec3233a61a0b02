/**
 * Till as the benchmarks run it: real child processes (`node --import tsx src/main.ts`) on one
 * DATABASE_URL, sharing SECRETS_KEY, each on its own loopback port; and a merchant with a test key
 * made through the admin API. BENCH_PROFILE=DIR adds --cpu-prof (written to DIR on a clean exit);
 * BENCH_TILL_ROOT runs Till from another checkout (an earlier commit, for before-and-after numbers).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(process.env.BENCH_TILL_ROOT ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'))
export const ADMIN_TOKEN = 'bench-admin-token'

export interface TillProcess {
  base: string
  child: ChildProcess
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export async function waitReady(base: string, child: ChildProcess, output: () => string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${base} exited before it was ready:\n${output()}`)
    try {
      const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) })
      if (res.status === 200) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`${base} not ready within ${timeoutMs} ms:\n${output()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export const SECRETS_KEY = randomBytes(32).toString('base64')

/**
 * Starts one instance; `env` overrides (RATE_LIMIT_PER_SECOND, DB_POOL_SIZE, TILL_JOBS…); `profileDir` as BENCH_PROFILE;
 * `gcLog`: a file that gets its output with one line per garbage collection (bench/gc.ts).
 */
export async function startTill(databaseUrl: string, env: Record<string, string> = {}, profileDir = process.env.BENCH_PROFILE, gcLog?: string): Promise<TillProcess> {
  const port = await freePort()
  // BENCH_TILL_NODE_FLAGS: flags for the instances' node (e.g. --trace-gc, which NODE_OPTIONS does not take).
  const flags = [...(process.env.BENCH_TILL_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), ...(gcLog ? ['--trace-gc-nvp'] : [])]
  const args = [...flags, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []), '--import', 'tsx', 'src/main.ts']
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      SECRETS_KEY,
      LOG_LEVEL: 'warn',
      // The bench's webhook receiver listens on loopback.
      WEBHOOK_ALLOW_PRIVATE: '1',
      // High enough that the limiter never refuses: the bench measures the service, not its quota.
      RATE_LIMIT_PER_SECOND: '10000000',
      DATA_DIR: path.join(os.tmpdir(), 'till-bench-unused'), // SECRETS_KEY and DATABASE_URL are given: nothing is kept there
      ...env,
    },
  })
  let out = ''
  // BENCH_TILL_LOG=file keeps everything the instances print (with BENCH_TILL_NODE_FLAGS=--trace-gc, their pauses).
  for (const log of [process.env.BENCH_TILL_LOG, gcLog]) if (log) for (const s of [child.stdout!, child.stderr!]) s.on('data', (d: Buffer | string) => appendFileSync(log, d))
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-20_000)))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-20_000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const base = `http://127.0.0.1:${port}`
  await waitReady(base, child, () => out)
  return {
    base,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      await exited
      clearTimeout(timer)
    },
  }
}

export async function startInstances(databaseUrl: string, n: number, env: Record<string, string> = {}): Promise<TillProcess[]> {
  // All at once, as a deployment would: migrations run under their advisory lock.
  return Promise.all(Array.from({ length: n }, () => startTill(databaseUrl, env)))
}

export async function stopAll(instances: TillProcess[]) {
  await Promise.all(instances.map((i) => i.stop()))
}

/** A merchant through the admin API; returns its id, test key and live key. */
export async function benchMerchant(base: string, name = 'Bench'): Promise<{ id: string; key: string; liveKey: string }> {
  const res = await fetch(`${base}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  const body = (await res.json()) as { id: string; keys: { test: string; live: string } }
  if (res.status !== 201) throw new Error(`merchant not created: ${res.status} ${JSON.stringify(body)}`)
  return { id: body.id, key: body.keys.test, liveKey: body.keys.live }
}

/** The merchant given a console login (admin API), signed in as a browser would: its session cookie. */
export async function consoleCookie(base: string, merchantId: string): Promise<string> {
  const email = `${merchantId.toLowerCase()}@example.com`
  const password = 'bench console password'
  const set = await fetch(`${base}/admin/v1/merchants/${merchantId}/password`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  if (set.status !== 200) throw new Error(`password not set: ${set.status}`)
  // The sign-in form's cookie and token, then the session cookie.
  const login = await fetch(`${base}/console/login`)
  const loginCookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  const token = /name="token" value="([^"]+)"/.exec(await login.text())![1]
  const signedIn = await fetch(`${base}/console/login`, {
    method: 'POST', redirect: 'manual',
    headers: { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, email, password }),
  })
  if (signedIn.status !== 303) throw new Error(`console sign-in failed: ${signedIn.status}`)
  return signedIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
}
