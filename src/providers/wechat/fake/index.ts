/**
 * A local WeChat Pay v3 that speaks the real protocol (docs/providers.md#testing-offline-till-fake-wechat), bound to loopback.
 * Tests and `till fake wechat` start it, register a merchant, and point a provider configuration's
 * settings.apiBase at `url`: the adapter needs nothing else changed.
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto'
import { loopbackHost, serveFake } from '../../fake-kit/server.js'
import { registerApi } from './api.js'
import { registerBillFiles } from './bill-api.js'
import { registerControl } from './control.js'
import { randomDigits } from './crypto.js'
import { Notifier } from './notify.js'
import { registerPages } from './pages.js'
import { FakeStore, rsaPair, type KeyPair, type Platform } from './store.js'

export interface WechatFakeOptions {
  host?: string
  port?: number
  /** The fake's clock; tests share theirs so timestamps, expiry and retries follow the test. */
  clock?: () => Date
  /** Scales the notification retry schedule (0.01 makes 15 s into 150 ms). */
  timeFactor?: number
  mode?: Platform['mode']
  /** Run due jobs (retries, refund settlement) on a timer every this many ms; tests leave it off and call runDue(). */
  autoRunMs?: number
  /** Source of RSA key pairs (the fake's own and generated merchants'); tests pass a pool. */
  newKeyPair?: () => KeyPair
  /** Reuse a signing identity (the CLI keeps it across restarts). */
  identity?: { publicKeyId: string; privateKeyPem: string }
}

/** Credentials in the shape Till's wechat provider configuration takes. */
export interface MerchantCredentials {
  mchId: string
  appId: string
  merchantSerialNo: string
  privateKey: string
  apiV3Key: string
  platformPublicKeyId?: string
  platformPublicKey?: string
  appSecret?: string
}

export interface MerchantAccount {
  service?: 'mainland' | 'cross_border'
  settlementCurrency?: string
}

export interface WechatFake {
  url: string
  store: FakeStore
  notifier: Notifier
  /**
   * Registers a merchant (generating what is not given) and returns the credentials to configure in
   * Till. `service: cross_border` opens it for WeChat Pay Global, settling (and listing) in `settlementCurrency`.
   */
  addMerchant(m?: Partial<MerchantCredentials>, account?: MerchantAccount): MerchantCredentials
  runDue(): Promise<number>
  close(): Promise<void>
}

const ALNUM32 = () => randomBytes(24).toString('base64').replace(/[^0-9A-Za-z]/g, '').padEnd(32, 'x').slice(0, 32)

export async function startWechatFake(opts: WechatFakeOptions = {}): Promise<WechatFake> {
  const host = loopbackHost(opts.host)
  const store = new FakeStore(opts.clock ?? (() => new Date()), opts.timeFactor ?? 1, opts.mode ?? 'publicKey', opts.identity?.publicKeyId, opts.newKeyPair ?? rsaPair)
  if (opts.identity) {
    const privateKey = createPrivateKey(opts.identity.privateKeyPem)
    store.platform.key = { privateKey, publicKey: createPublicKey(privateKey) }
  }
  const notifier = new Notifier(store)
  const server = await serveFake({ host, port: opts.port, autoRunMs: opts.autoRunMs }, store.jobs, async (app, baseUrl) => {
    await app.register(async (api) => registerApi(api, store, notifier, baseUrl))
    // Statement files: their answers are not signed over the body, so they live outside the API's signing hook.
    await app.register(async (files) => registerBillFiles(files, store))
    await app.register(async (ctl) => {
      ctl.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)))
      })
      registerControl(ctl, store, notifier)
      registerPages(ctl, store, notifier)
    })
  })

  return {
    url: server.url,
    store,
    notifier,
    addMerchant(m = {}, account = {}) {
      const pair = m.privateKey ? null : store.newKeyPair()
      const privateKeyPem = m.privateKey ?? (pair!.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)
      const creds: MerchantCredentials = {
        mchId: m.mchId ?? `16${randomDigits(8)}`,
        appId: m.appId ?? `wx${randomBytes(8).toString('hex')}`,
        merchantSerialNo: m.merchantSerialNo ?? randomBytes(20).toString('hex').toUpperCase(),
        privateKey: privateKeyPem,
        apiV3Key: m.apiV3Key ?? ALNUM32(),
        ...(m.appSecret ? { appSecret: m.appSecret } : {}),
      }
      if (store.platform.mode === 'publicKey') {
        creds.platformPublicKeyId = store.platform.publicKeyId
        creds.platformPublicKey = store.platform.key.publicKey.export({ type: 'spki', format: 'pem' }) as string
      }
      const existing = store.merchants.get(creds.mchId)
      store.merchants.set(creds.mchId, {
        mchId: creds.mchId,
        appIds: [...new Set([...(existing?.appIds ?? []), creds.appId])],
        serialNo: creds.merchantSerialNo,
        publicKey: createPublicKey(privateKeyPem),
        apiV3Key: creds.apiV3Key,
        service: account.service ?? 'mainland',
        ...(account.service === 'cross_border' ? { settlementCurrency: account.settlementCurrency ?? 'HKD' } : {}),
      })
      return creds
    },
    runDue: () => store.jobs.runDue(),
    close: server.close,
  }
}
