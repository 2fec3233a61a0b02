/**
 * The real `till` binary (`node bin/till.mjs …`, the JavaScript of dist/, rebuilt first when older
 * than src/) as a child process: run to completion with its exit code and output, or kept running
 * (webhooks listen) with a way to wait for a line of its output.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestContext } from 'node:test'
import { ADMIN_TOKEN, type TestApp } from './app.js'
import { ROOT } from './process.js'

const BIN = path.join(ROOT, 'bin', 'till.mjs')
const RUN_TIMEOUT_MS = 30_000

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Where the CLI keeps what it remembers (webhooks listen's secrets): this test process's own, never the developer's. */
const CONFIG_HOME = mkdtempSync(path.join(tmpdir(), 'till-cli-config-'))

/** The environment of a CLI run: only what the test gives, never the developer's own TILL_URL or keys. */
function env(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: CONFIG_HOME }
  for (const name of ['TILL_URL', 'ADMIN_TOKEN', 'TILL_API_KEY', 'TILL_OPERATOR', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS']) delete e[name]
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) e[k] = v
  return e
}

/** TILL_URL and ADMIN_TOKEN for the test app, and its merchant's test key. */
export const envFor = (ta: TestApp, extra: Record<string, string | undefined> = {}) =>
  ({ TILL_URL: ta.baseUrl, ADMIN_TOKEN, TILL_API_KEY: ta.merchant.testKey, ...extra })

function launch(args: string[], extraEnv: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: env(extraEnv), stdio: ['pipe', 'pipe', 'pipe'] })
}

/** Runs `till …` to completion (bounded), with `input` on stdin. */
export function till(args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<CliResult> {
  const child = launch(args, opts.env ?? {})
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.stdin!.end(opts.input ?? '')
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`till ${args.join(' ')} did not finish within ${RUN_TIMEOUT_MS} ms; stdout:\n${stdout}\nstderr:\n${stderr}`))
    }, RUN_TIMEOUT_MS)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

export interface RunningCli {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the first match of `pattern` in stdout; rejects after `timeoutMs` or if the process ends first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts `till …` and leaves it running; SIGKILLed when the test ends if still alive. */
export function startCli(t: TestContext, args: string[], extraEnv: Record<string, string | undefined>): RunningCli {
  const child = launch(args, extraEnv)
  child.stdin!.end()
  let out = ''
  let err = ''
  const listeners = new Set<() => void>()
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d
    for (const l of listeners) l()
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  let ended = false
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      ended = true
      for (const l of listeners) l()
      resolve({ code, signal })
    }))
  t.after(async () => {
    if (!ended) {
      child.kill('SIGKILL')
      await closed
    }
  })
  const waitFor = (pattern: RegExp, timeoutMs = 15_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no ${pattern} within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)), timeoutMs)
      const check = () => {
        const m = pattern.exec(out)
        if (m) done(null, m)
        else if (ended) done(new Error(`till ended without printing ${pattern}; stdout:\n${out}\nstderr:\n${err}`))
      }
      const done = (e: Error | null, m?: RegExpExecArray) => {
        clearTimeout(timer)
        listeners.delete(check)
        if (e) reject(e)
        else resolve(m!)
      }
      listeners.add(check)
      check()
    })
  return { child, stdout: () => out, stderr: () => err, waitFor, closed }
}
