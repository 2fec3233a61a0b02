/**
 * Started without SECRETS_KEY, Till generates one into DATA_DIR and seals the provider credentials
 * a merchant stores with it. Restarted on the same DATA_DIR it must read that key back, not make
 * another: otherwise every stored credential is lost and live checkout stops. A real process, a
 * WeChat Pay configuration against the local fake, stopped and started again, then a live checkout
 * paid through it: the order is signed with the stored private key and the notification opened
 * with the stored APIv3 key and verified with the stored platform key.
 */
import assert from 'node:assert/strict'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { getPage, postForm, tokenOf } from '../helpers/pages.js'
import { api, dataDir, freePort, startTill, stopTill } from '../helpers/process.js'
import { until } from '../helpers/wait.js'
import { startFake, UA } from '../helpers/wechat.js'

const ADMIN = 'x' // startTill's ADMIN_TOKEN
const GENERATED = /generated a secrets key into/

test('a SECRETS_KEY generated into DATA_DIR is reused after a restart: stored provider credentials still open and a live checkout is paid', async (t) => {
  const dir = dataDir(t)
  const { fake, ctl } = await startFake(t)
  // One port for both lives: BASE_URL (the notify_url WeChat calls) must stay true across the restart.
  const port = await freePort()
  const env = { BASE_URL: `http://127.0.0.1:${port}` }

  const first = await startTill(dir, env, { port })
  const keyFile = path.join(dir, 'secrets.key')
  const key = readFileSync(keyFile, 'utf8')
  assert.match(key, /^[0-9a-f]{64}\n$/)
  assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'readable by its owner only')
  assert.match(first.stdout() + first.stderr(), GENERATED)
  const merchant = await api(first, 'POST', '/admin/v1/merchants', ADMIN, { name: 'Acme' })
  assert.equal(merchant.status, 201, JSON.stringify(merchant.body))
  const creds = fake.addMerchant()
  const cfg = await api(first, 'POST', `/admin/v1/merchants/${merchant.body.id}/provider_configs`, ADMIN, { provider: 'wechat', label: 'main', credentials: creds, settings: { apiBase: fake.url } })
  assert.equal(cfg.status, 201, JSON.stringify(cfg.body))
  assert.deepEqual(await stopTill(first), { code: 0, signal: null }, first.stderr())

  const second = await startTill(dir, env, { port })
  assert.equal(readFileSync(keyFile, 'utf8'), key, 'the same key, not a new one')
  assert.doesNotMatch(second.stdout() + second.stderr(), GENERATED)
  const liveKey = merchant.body.keys.live as string
  const created = await api(second, 'POST', '/api/v1/checkout', liveKey, { amount: 9900, currency: 'CNY', description: 'Blue mug', providerHints: { wechat: 'main' } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const id = created.body.id as string

  // The customer presses "Pay with WeChat Pay": Till places the order, signed with the stored private key.
  const site = { baseUrl: second.base }
  const token = tokenOf((await getPage(site, `/c/${id}`, { 'user-agent': UA.desktop })).html)
  const chosen = await postForm(site, `/c/${id}/choose`, { token, provider: 'wechat' }, { 'user-agent': UA.desktop })
  assert.equal(chosen.status, 200, chosen.html.slice(0, 500))
  assert.ok(chosen.html.includes('<h1>Scan this code with WeChat Pay to pay</h1>'), 'the QR code of the order WeChat accepted')
  const order = fake.store.findOrder((o) => o.mchId === creds.mchId)
  assert.ok(order, 'WeChat has the order')

  await ctl.pay({ out_trade_no: order.outTradeNo })
  let session: any
  await until('the session paid', 30_000, async () => {
    session = (await api(second, 'GET', `/api/v1/sessions/${id}`, liveKey)).body
    return session.status !== 'processing'
  })
  assert.equal(session.status, 'paid')
  assert.equal(session.record.amount, 9900)
  assert.equal(session.record.provider, 'wechat')
  assert.deepEqual(await stopTill(second), { code: 0, signal: null }, second.stderr())
})
