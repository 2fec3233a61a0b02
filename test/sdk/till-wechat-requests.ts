/**
 * Drives Till's WeChat Pay adapter against a running `till fake wechat` (its `--json` line given as
 * the first argument), in public-key mode and then in certificate mode, so the fake's request log
 * holds every kind of request Till sends. scripts/sdk-checks.sh then has the official Go SDK decode
 * them (test/sdk/wechatpay-go). Till's ids start `att_` and `ref_`; the Go SDK's own start `sdk`.
 */
import { readFileSync } from 'node:fs'
import { newId } from '../../src/domain/ids.js'
import type { AttemptInput, ProviderConfig } from '../../src/providers/types.js'
import { createWechatProvider } from '../../src/providers/wechat/index.js'
import { wechatFakeControl } from '../../src/providers/wechat/fake/client.js'

const fake = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { url: string; credentials: Record<string, string> }
const ctl = wechatFakeControl(fake.url)
const provider = createWechatProvider({ timeoutMs: 10_000 })
const publicKeyCfg: ProviderConfig = { id: 'pc_sdk', label: 'sdk', credentials: fake.credentials, settings: { apiBase: fake.url } }
const { platformPublicKeyId: _id, platformPublicKey: _key, ...certCreds } = fake.credentials
const certCfg: ProviderConfig = { id: 'pc_sdk_cert', label: 'sdk-cert', credentials: certCreds, settings: { apiBase: fake.url } }

const attempt = (channel: string, over: Partial<AttemptInput> = {}): AttemptInput => ({
  attemptId: newId('att'), sessionId: newId('sess'), amount: 9900, currency: 'CNY', description: 'Till SDK check', channel,
  notifyUrl: 'https://till.example.com/hooks/wechat/pc_sdk', returnUrl: 'https://till.example.com/c/sess_1/done', checkoutUrl: 'https://till.example.com/c/sess_1',
  expiresAt: new Date(Date.now() + 3600_000), options: {}, ...over,
})
const ref = (a: AttemptInput) => ({ attemptId: a.attemptId, providerRef: null, data: {} })

async function run(cfg: ProviderConfig) {
  const native = attempt('native')
  await provider.createAttempt(cfg, native)
  await provider.createAttempt(cfg, attempt('h5', { clientIp: '203.0.113.7' }))
  const jsapi = attempt('jsapi', { payerId: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' })
  await provider.createAttempt(cfg, jsapi)
  await provider.closePayment(cfg, ref(jsapi))
  await ctl.pay({ out_trade_no: native.attemptId })
  await provider.queryPayment(cfg, ref(native))
  const refundId = newId('ref')
  const payment = { ...ref(native), providerRef: null }
  await provider.refund(cfg, { refundId, amount: 100, totalAmount: 9900, currency: 'CNY', reason: 'SDK check', payment, notifyUrl: native.notifyUrl })
  await provider.queryRefund(cfg, { refundId, providerRefundRef: null, amount: 100, createdAt: new Date(), payment })
}

await run(publicKeyCfg)
await ctl.mode('platformCert')
await run(certCfg)
await ctl.mode('publicKey')
await provider.client.close()
console.log(`Till's adapter sent ${(await ctl.requests()).length} requests to ${fake.url}`)
