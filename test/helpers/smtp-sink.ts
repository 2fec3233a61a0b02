/** A real SMTP server on loopback (aiosmtpd, test/mail/smtp-sink.py) that records what it accepts and can refuse or hang. */
import { execFileSync, spawn } from 'node:child_process'
import path from 'node:path'
import { createInterface } from 'node:readline'
import type { TestContext } from 'node:test'
import { ROOT } from './process.js'

export interface SunkMessage {
  mailFrom: string
  rcptTos: string[]
  headers: Record<string, string>
  contentType: string
  parts: { type: string; charset: string | null; content: string }[]
}

export interface SmtpSink {
  url: string
  messages: SunkMessage[]
  /** Resolves when the sink holds `n` messages. */
  received(n: number): Promise<SunkMessage[]>
  /** How the sink answers DATA from now on. */
  answer(mode: 'accept' | 'refuse' | 'hang'): Promise<void>
}

export async function startSmtpSink(t: TestContext): Promise<SmtpSink> {
  const python = execFileSync('bash', [path.join(ROOT, 'scripts/smtp-sink.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
  const child = spawn(python, [path.join(ROOT, 'test/mail/smtp-sink.py')], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.after(() => { child.kill() })
  const messages: SunkMessage[] = []
  const waiters = new Set<() => void>()
  const wake = () => { for (const w of waiters) w() }
  let port = 0
  let mode = ''
  const lines = createInterface({ input: child.stdout })
  lines.on('line', (line) => {
    const j = JSON.parse(line)
    if (j.port) port = j.port
    else if (j.mode) mode = j.mode
    else messages.push(j)
    wake()
  })
  child.on('exit', wake)
  const until = (ok: () => boolean) => new Promise<void>((resolve, reject) => {
    const check = () => {
      if (ok()) {
        waiters.delete(check)
        resolve()
      } else if (child.exitCode !== null) reject(new Error(`the SMTP sink exited (${child.exitCode})`))
    }
    waiters.add(check)
    check()
  })
  await until(() => port > 0)
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async received(n) {
      await until(() => messages.length >= n)
      return messages.slice(0, n)
    },
    async answer(m) {
      child.stdin.write(`${m}\n`)
      await until(() => mode === m)
    },
  }
}
