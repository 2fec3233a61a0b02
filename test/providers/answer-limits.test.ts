/**
 * Every provider answer is read under a byte cap and an overall deadline (issue 36 §1 and §3.7,
 * docs/operate.md#what-till-reads-from-a-provider), the connection closed when one is passed: an
 * API answer through exchange() and the WeChat OAuth answer, which was read with `.json()`.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { test } from 'node:test'
import { exchange } from '../../src/providers/exchange.js'
import { ANSWER_MAX_BYTES } from '../../src/providers/limits.js'
import { ProviderError } from '../../src/providers/types.js'
import { undici } from '../../src/providers/undici.js'
import { fetchOpenid } from '../../src/providers/wechat/oauth.js'
import { wechatCredentials } from '../helpers/credentials.js'
import { hostileServer, serveBytes, serveEndless } from '../helpers/hostile.js'

/** A JSON answer with an openid, padded past the API answer's cap. */
const padded = Buffer.from(JSON.stringify({ openid: 'o_payer', access_token: 't', padding: 'x'.repeat(ANSWER_MAX_BYTES) }))

/** Sends a byte every 100 ms, forever: each wait for more is short, the whole never ends. */
function drip(_req: IncomingMessage, res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'application/json' })
  const timer = setInterval(() => res.write(' '), 100)
  res.on('close', () => clearInterval(timer))
}

const agent = () => new (undici().Agent)()

test('an API answer larger than its cap is refused (unknown), the connection closed; an endless one too', async (t) => {
  const big = await hostileServer(t, serveBytes(padded, 'application/json'))
  const dispatcher = agent()
  t.after(() => dispatcher.close())
  await assert.rejects(exchange(big.url, { method: 'GET', headers: {}, dispatcher, timeoutMs: 5000 }, 'Creem'),
    (e) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === 'answer_too_large' && e.message === "Creem's answer is larger than 1 MiB; refused")
  const endless = serveEndless()
  const h = await hostileServer(t, endless.serve)
  await assert.rejects(exchange(h.url, { method: 'GET', headers: {}, dispatcher, timeoutMs: 5000 }, 'Creem'), (e) => e instanceof ProviderError && e.code === 'answer_too_large')
  await endless.closed
})

test('an answer that never ends, each byte in time, is cut at its deadline (twice the timeout)', async (t) => {
  const h = await hostileServer(t, drip)
  const dispatcher = agent()
  t.after(() => dispatcher.close())
  const started = performance.now()
  await assert.rejects(exchange(h.url, { method: 'GET', headers: {}, dispatcher, timeoutMs: 500 }, 'Alipay'),
    (e) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === 'network' && /took longer than 1 s/.test(e.message))
  assert.ok(performance.now() - started >= 1000)
})

test('the WeChat OAuth answer is capped like any provider answer: a padded one is refused, a dripping one cut', async (t) => {
  const big = await hostileServer(t, serveBytes(padded, 'application/json'))
  const dripping = await hostileServer(t, drip)
  const dispatcher = agent()
  t.after(() => dispatcher.close())
  const cfg = (apiBase: string) => ({ id: 'pc_1', label: 'main', credentials: { ...wechatCredentials(), appSecret: 's3cret' }, settings: { apiBase } })
  await assert.rejects(fetchOpenid(cfg(big.url), 'code', dispatcher, 5000), (e) => e instanceof ProviderError && e.code === 'answer_too_large')
  await assert.rejects(fetchOpenid(cfg(dripping.url), 'code', dispatcher, 500), (e) => e instanceof ProviderError && e.code === 'network' && /took longer than 1 s/.test(e.message))
})
