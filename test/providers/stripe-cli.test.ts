/**
 * `till fake stripe` as a merchant runs it: it prints a configuration that works against it (the
 * secret key is accepted, the endpoint given is added with the printed signing secret), and keeps
 * the account and its endpoints across restarts.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { runFakeCli } from '../helpers/fake-cli.js'

interface Printed {
  url: string
  provider: string
  label: string
  credentials: { secretKey: string; webhookSecret: string }
  settings: { apiBase: string }
  endpoints: Array<{ url: string; secret: string }>
}

test('till fake stripe prints a working configuration and keeps its account and endpoint across restarts', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'till-fake-stripe-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const state = path.join(dir, 'fake-stripe.json')
  const first = await runFakeCli<Printed>('stripe', ['--state', state, '--webhook-url', 'http://127.0.0.1:9/hooks/stripe/pc_x'])
  try {
    const p = first.printed
    assert.deepEqual([p.provider, p.label, p.settings.apiBase, p.endpoints.map((e) => e.url)], ['stripe', 'fake', p.url, ['http://127.0.0.1:9/hooks/stripe/pc_x']])
    assert.match(p.credentials.secretKey, /^sk_test_/)
    assert.equal(p.credentials.webhookSecret, p.endpoints[0].secret)
    const ok = await fetch(`${p.url}/v1/refunds?limit=1`, { headers: { authorization: `Bearer ${p.credentials.secretKey}` } })
    assert.deepEqual([ok.status, (await ok.json()).object], [200, 'list'])
    const refused = await fetch(`${p.url}/v1/refunds`, { headers: { authorization: 'Bearer sk_test_someoneelse' } })
    assert.equal(refused.status, 401)
  } finally {
    assert.equal(await first.stop(), 0)
  }
  const saved = JSON.parse(readFileSync(state, 'utf8'))
  const second = await runFakeCli<Printed>('stripe', ['--state', state])
  try {
    assert.deepEqual(second.printed.credentials, { secretKey: saved.secretKey, webhookSecret: saved.endpoints[0].secret })
    assert.deepEqual(second.printed.endpoints.map((e) => e.url), ['http://127.0.0.1:9/hooks/stripe/pc_x'])
  } finally {
    await second.stop()
  }
})
