/**
 * A local Alipay OpenAPI v2 gateway that speaks the real protocol (docs/providers.md#testing-offline-till-fake-alipay),
 * bound to loopback. Tests and `till fake alipay` start it, register an app in public-key or
 * certificate mode, and point a provider configuration's gateway at `${url}/gateway.do`.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { acceptForms, loopbackHost, serveFake } from '../../fake-kit/server.js'
import { certSn } from '../sign.js'
import { issueAppCertificate } from './cert.js'
import { identity, registerControl } from './control.js'
import { registerBillDownload } from './bill-api.js'
import { registerGateway } from './gateway.js'
import { Notifier } from './notify.js'
import { registerPages } from './pages.js'
import { FakeStore, rsaPair, type FakeApp, type KeyMode, type KeyPair } from './store.js'

export interface AlipayFakeOptions {
  host?: string
  port?: number
  /** The fake's clock; tests share theirs so timestamps, expiry and retries follow the test. */
  clock?: () => Date
  /** Scales the notification retry schedule (0.001 makes 4 minutes into 240 ms). */
  timeFactor?: number
  /** Run due jobs (retries, expiry) on a timer every this many ms; tests leave it off and tick. */
  autoRunMs?: number
  /** Source of RSA key pairs (Alipay's, the root's, generated apps'); tests pass a pool. */
  newKeyPair?: () => KeyPair
  /** Reuse Alipay's signing key and the root CA's key (the CLI keeps them across restarts). */
  identity?: SavedIdentity
}

/** Alipay's keys and certificates, as the CLI keeps them across restarts. */
export interface SavedIdentity {
  alipayPrivateKeyPem: string
  rootPrivateKeyPem: string
  rootBundle: string
  alipayCertificate: string
}

/** What a merchant downloads from Alipay's open platform, in the shape Alipay's SDK takes it. */
export interface AppCredentials {
  appId: string
  /** The merchant's PID (2088…): seller_id in answers and notifications. */
  sellerId: string
  /** The app's private key, PKCS#8 PEM (what Alipay's key tool makes). */
  privateKey: string
  /** Public-key mode: Alipay's public key (SPKI PEM). */
  alipayPublicKey?: string
  /** Certificate mode: appCertPublicKey_<appId>.crt, alipayCertPublicKey_RSA2.crt, alipayRootCert.crt. */
  appCertificate?: string
  alipayCertificate?: string
  alipayRootCertificate?: string
}

export interface AlipayFake {
  url: string
  /** `${url}/gateway.do`: where Alipay's SDKs send everything. */
  gateway: string
  store: FakeStore
  notifier: Notifier
  /** Registers an app (generating what is not given) and returns what the merchant configures. */
  addApp(o?: { mode?: KeyMode; appId?: string; sellerId?: string; privateKey?: string; appCertificate?: string }): AppCredentials
  /** What to save to come back with the same keys and certificates. */
  savedIdentity(): SavedIdentity
  runDue(): Promise<number>
  close(): Promise<void>
}

const pair = (pem: string): KeyPair => {
  const privateKey = createPrivateKey(pem)
  return { privateKey, publicKey: createPublicKey(privateKey) }
}

export async function startAlipayFake(opts: AlipayFakeOptions = {}): Promise<AlipayFake> {
  const host = loopbackHost(opts.host)
  const saved = opts.identity
  const keys = saved ? { alipayKey: pair(saved.alipayPrivateKeyPem), rootKey: pair(saved.rootPrivateKeyPem), pki: saved } : undefined
  const store = new FakeStore(opts.clock ?? (() => new Date()), opts.timeFactor ?? 1, opts.newKeyPair ?? rsaPair, keys)
  const notifier = new Notifier(store)
  const server = await serveFake({ host, port: opts.port, autoRunMs: opts.autoRunMs }, store.jobs, async (app, baseUrl) => {
    await app.register(async (gw) => registerGateway(gw, store, notifier, baseUrl))
    await app.register(async (files) => registerBillDownload(files, store))
    await app.register(async (ctl) => {
      acceptForms(ctl)
      registerControl(ctl, store, notifier)
      registerPages(ctl, store, notifier)
    })
  })

  return {
    url: server.url,
    gateway: `${server.url}/gateway.do`,
    store,
    notifier,
    addApp(o = {}) {
      const keyPair = o.privateKey ? pair(o.privateKey) : store.newKeyPair()
      const app: FakeApp = {
        appId: o.appId ?? store.newAppId(), sellerId: o.sellerId ?? store.newSellerId(), mode: o.mode ?? 'publicKey', publicKey: keyPair.publicKey,
      }
      const creds: AppCredentials = {
        appId: app.appId, sellerId: app.sellerId, privateKey: o.privateKey ?? (keyPair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
      }
      const alipay = identity(store)
      if (app.mode === 'cert') {
        const cert = o.appCertificate ? { pem: o.appCertificate, sn: certSn(o.appCertificate) } : issueAppCertificate(store.pki, store.clock(), app)
        app.appCertificate = cert.pem
        app.appCertSn = cert.sn
        Object.assign(creds, { appCertificate: cert.pem, alipayCertificate: alipay.alipayCertificate, alipayRootCertificate: alipay.alipayRootCertificate })
      } else {
        creds.alipayPublicKey = alipay.alipayPublicKey
      }
      store.apps.set(app.appId, app)
      return creds
    },
    savedIdentity: () => ({
      alipayPrivateKeyPem: store.alipayKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      rootPrivateKeyPem: store.pki.rootKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      rootBundle: store.pki.rootBundle,
      alipayCertificate: store.pki.alipayCertificate,
    }),
    runDue: () => store.jobs.runDue(),
    close: server.close,
  }
}
