/**
 * The real service as a child process (`node --import tsx src/main.ts`) on its own embedded
 * PostgreSQL in a fresh DATA_DIR, killed and its cluster stopped when the test ends.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { stopEmbedded } from '../../src/store/embedded.js'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const READY_TIMEOUT_MS = 60_000
export const KEY_LINE = /test key: (sk_test_[0-9A-Za-z]{32})\b/g

export interface Till {
  child: ChildProcess
  port: number
  base: string
  stdout(): string
  stderr(): string
  /** Resolves when the process has exited and its output is fully read. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Resolves once `pattern` appears on stdout (rejects if the process ends first). */
  waitForStdout(pattern: RegExp): Promise<RegExpExecArray>
}

export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * A loopback port that refuses connections for the rest of the test: the local end of an open
 * connection held until then. Nothing listens there, and nothing can start to (EADDRINUSE), where a
 * port that freePort() found free may be taken by another test's listener before it is used.
 */
export async function refusedPort(t: TestContext): Promise<number> {
  const accepted: net.Socket[] = []
  const server = net.createServer((socket) => accepted.push(socket))
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject))
  const held = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => held.once('connect', resolve).once('error', reject))
  t.after(() => new Promise<void>((resolve) => {
    for (const socket of [held, ...accepted]) socket.destroy()
    server.close(() => resolve())
  }))
  return held.localPort!
}

/** A live process: signal 0 reaches it and it is not a zombie (PID 1 here may reap exited orphans late). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    // /proc/<pid>/stat: "pid (comm) STATE …"; comm may contain spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return process.platform !== 'linux' // no /proc: trust signal 0
  }
}

/** The pid postmaster.pid names, or null when there is no such file. */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'pg', 'postmaster.pid')
  if (!existsSync(file)) return null
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0])
  return Number.isInteger(pid) && pid > 0 ? pid : null
}

/** Kills (SIGKILL) every service a test started on a DATA_DIR that is still running. */
const running = new Map<string, Set<() => Promise<void>>>()

/** A fresh DATA_DIR; when the test ends, its services are killed, its cluster stopped, the directory removed. */
export function dataDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-proc-'))
  running.set(dir, new Set())
  t.after(async () => {
    for (const kill of running.get(dir)!) await kill()
    running.delete(dir)
    await stopEmbedded(dir).catch((e) => console.error(`stopping the cluster in ${dir}: ${e}`))
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/** Starts the service on DATA_DIR and waits (bounded) until /readyz answers 200. */
/**
 * `cwd` set: the real `bin/till.mjs start`, run from that directory as a user would, instead of src/main.ts from the repository.
 * `root` set: src/main.ts of another checkout (an earlier release, test/upgrade/stage.ts).
 */
export async function startTill(dir: string, extraEnv: Record<string, string> = {}, opts: { port?: number; wait?: boolean; cwd?: string; root?: string } = {}): Promise<Till> {
  const port = opts.port ?? (await freePort())
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['DATABASE_URL', 'BASE_URL', 'SECRETS_KEY', 'TILL_JOBS', 'WEBHOOK_ALLOW_PRIVATE', 'PROVIDER_ALLOW_PRIVATE', 'NODE_TEST_CONTEXT', 'RATE_LIMIT_PER_SECOND', 'DB_POOL_SIZE']) {
    delete env[name]
  }
  Object.assign(env, { DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: 'x', LOG_LEVEL: 'warn', PROVIDER_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_PRIVATE: '1' }, extraEnv)
  const argv = opts.cwd ? [path.join(ROOT, 'bin/till.mjs'), 'start'] : ['--import', 'tsx', 'src/main.ts']
  const child = spawn(process.execPath, argv, { cwd: opts.cwd ?? opts.root ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })))
  let ended = false
  void closed.then(() => (ended = true))
  running.get(dir)?.add(async () => {
    if (!ended) {
      child.kill('SIGKILL')
      await closed
    }
  })

  const waitForStdout = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(out)
        if (m) {
          child.stdout!.off('data', check)
          resolve(m)
          return true
        }
        return false
      }
      if (check()) return
      child.stdout!.on('data', check)
      void closed.then(() => {
        if (!check()) reject(new Error(`process ended without printing ${pattern}; stdout:\n${out}\nstderr:\n${err}`))
      })
    })

  const base = `http://127.0.0.1:${port}`
  const till: Till = { child, port, base, stdout: () => out, stderr: () => err, closed, waitForStdout }
  if (opts.wait === false) return till
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    if (ended) throw new Error(`till exited before it was ready (${JSON.stringify(await closed)}); stderr:\n${err}\nstdout:\n${out}`)
    try {
      const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) })
      if (res.status === 200) return till
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`till not ready within ${READY_TIMEOUT_MS} ms; stderr:\n${err}\nstdout:\n${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export async function stopTill(till: Till, signal: NodeJS.Signals = 'SIGTERM') {
  till.child.kill(signal)
  return till.closed
}

export async function api(till: Till, method: string, urlPath: string, key: string, body?: unknown) {
  const res = await fetch(till.base + urlPath, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((e: Error) => {
    // Once seen under heavy load (a fresh Till, its first POST): say what Till was doing.
    throw new Error(`${method} ${urlPath}: ${e.message} (${String((e as { cause?: unknown }).cause ?? '')}); Till exit code ${till.child.exitCode}; stderr:\n${till.stderr()}\nstdout:\n${till.stdout()}`)
  })
  const text = await res.text()
  let json: any = text
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: res.status, body: json }
}

export async function demoKey(till: Till): Promise<string> {
  return (await till.waitForStdout(KEY_LINE))[1]
}
