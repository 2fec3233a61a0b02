/**
 * The Alipay fake for tests: started on loopback (with the test's clock if given), closed when the
 * test ends; apps in both key modes; Alipay's official SDK configured for an app as a merchant
 * would; and the SDK's own verifier applied to a request's parameters.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import type { TestContext } from 'node:test'
import { AlipaySdk, type AlipaySdkConfig } from 'alipay-sdk'
import { alipayFakeControl } from '../../src/providers/alipay/fake/client.js'
import { startAlipayFake, type AlipayFake, type AlipayFakeOptions, type AppCredentials } from '../../src/providers/alipay/fake/index.js'
import type { KeyMode, KeyPair } from '../../src/providers/alipay/fake/store.js'

/** RSA pairs made once per test file: generating each takes a quarter second. */
const pool: KeyPair[] = []

/** Pairs from the pool in order, so the keys one fake holds (Alipay's, the root's, each app's) all differ. */
export function pooledKeyPairs(): () => KeyPair {
  let next = 0
  return () => {
    if (next === pool.length) pool.push(generateKeyPairSync('rsa', { modulusLength: 2048 }))
    return pool[next++]
  }
}

export async function startAlipay(t: TestContext, opts: AlipayFakeOptions = {}) {
  const fake = await startAlipayFake({ newKeyPair: pooledKeyPairs(), ...opts })
  t.after(() => fake.close())
  return { fake, ctl: alipayFakeControl(fake.url) }
}

/** A fake with one app in each key mode. */
export async function alipayWithApps(t: TestContext, opts: AlipayFakeOptions = {}) {
  const started = await startAlipay(t, opts)
  const apps: Record<KeyMode, AppCredentials> = { publicKey: started.fake.addApp({ mode: 'publicKey' }), cert: started.fake.addApp({ mode: 'cert' }) }
  return { ...started, apps }
}

/** Alipay's SDK configuration for an app, as a merchant writes it (PKCS#8 key; certificates in certificate mode). */
export function sdkConfig(gateway: string, app: AppCredentials): AlipaySdkConfig {
  const base = { appId: app.appId, privateKey: app.privateKey, gateway, keyType: 'PKCS8' as const }
  return app.appCertificate
    ? { ...base, appCertContent: app.appCertificate, alipayPublicCertContent: app.alipayCertificate, alipayRootCertContent: app.alipayRootCertificate }
    : { ...base, alipayPublicKey: app.alipayPublicKey }
}

export const alipaySdk = (fake: AlipayFake, app: AppCredentials) => new AlipaySdk(sdkConfig(fake.gateway, app))

/** The app's public key (SPKI PEM): what the merchant uploads to Alipay, what the gateway verifies with. */
export const appPublicKey = (app: AppCredentials) => createPublicKey(app.privateKey).export({ type: 'spki', format: 'pem' }) as string

/**
 * Whether Alipay's SDK accepts a request's signature: its own verifier (checkNotifySignV2, values
 * as they are) with the app's public key in Alipay's place. It tries with sign_type kept first,
 * which is how requests are signed.
 */
export function sdkAcceptsRequest(params: Record<string, string>, app: AppCredentials): boolean {
  const verifier = new AlipaySdk({ appId: app.appId, privateKey: app.privateKey, keyType: 'PKCS8', alipayPublicKey: appPublicKey(app) })
  return verifier.checkNotifySignV2(params)
}

/** When the fake publishes a Beijing day's trade bill: 09:00 the next day, as Alipay usually has it by then. */
export const alipayBillPublishedAt = (day: string) => new Date(Date.parse(`${day}T09:00:00+08:00`) + 24 * 3600_000)
