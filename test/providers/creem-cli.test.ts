/**
 * `till fake creem` as a merchant runs it: it prints a configuration that works against it (the
 * API key is accepted, the webhook URL given is registered), and keeps the account across restarts.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { runFakeCli } from '../helpers/fake-cli.js'

interface Printed {
  url: string
  provider: string
  label: string
  credentials: { apiKey: string; webhookSecret: string }
  settings: { apiBase: string }
  webhookUrls: string[]
}

/** Starts the command, resolves with its first stdout line, and stops it (SIGTERM) when the test ends. */
const runFake = (args: string[]) => runFakeCli<Printed>('creem', args)

test('till fake creem prints a working configuration and keeps its account across restarts', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'till-fake-creem-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const state = path.join(dir, 'fake-creem.json')
  const first = await runFake(['--state', state, '--webhook-url', 'http://127.0.0.1:9/hooks/creem/pc_x'])
  try {
    const p = first.printed
    assert.deepEqual([p.provider, p.label, p.settings.apiBase, p.webhookUrls], ['creem', 'fake', p.url, ['http://127.0.0.1:9/hooks/creem/pc_x']])
    assert.match(p.credentials.apiKey, /^creem_test_/)
    const ok = await fetch(`${p.url}/v1/products`, {
      method: 'POST', headers: { 'x-api-key': p.credentials.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Mug', price: 1500, currency: 'EUR', billing_type: 'onetime' }),
    })
    assert.equal(ok.status, 200)
  } finally {
    assert.equal(await first.stop(), 0)
  }
  const saved = JSON.parse(readFileSync(state, 'utf8'))
  const second = await runFake(['--state', state])
  try {
    assert.deepEqual(second.printed.credentials, { apiKey: saved.apiKey, webhookSecret: saved.webhookSecret })
    assert.deepEqual(second.printed.webhookUrls, ['http://127.0.0.1:9/hooks/creem/pc_x'])
  } finally {
    await second.stop()
  }
})

test('till fake creem --help shows its options', async () => {
  const child = spawn(process.execPath, ['bin/till.mjs', 'fake', 'creem', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  assert.equal(code, 0)
  assert.match(out, /^usage: till fake creem \[--port 8092\]/)
  assert.match(out, /--webhook-url/)
})
