/** The WeChat Pay fake for tests: started on loopback with the test's clock, closed when the test ends. */
import { generateKeyPairSync } from 'node:crypto'
import type { TestContext } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import type { AttemptInput, ProviderConfig } from '../../src/providers/types.js'
import { createWechatProvider } from '../../src/providers/wechat/index.js'
import { startTestApp, testClock } from './app.js'
import { wechatFakeControl } from '../../src/providers/wechat/fake/client.js'
import { startWechatFake, type WechatFakeOptions } from '../../src/providers/wechat/fake/index.js'
import type { KeyPair } from '../../src/providers/wechat/fake/store.js'
import { providerHook } from './provider-hook.js'

/** RSA pairs made once per test file and handed out in turn: generating each takes a quarter second. */
const pool: KeyPair[] = []
let next = 0
export function pooledKeyPair(): KeyPair {
  if (pool.length < 4) pool.push(generateKeyPairSync('rsa', { modulusLength: 2048 }))
  return pool[next++ % pool.length]
}

export async function startFake(t: TestContext, opts: WechatFakeOptions = {}) {
  const fake = await startWechatFake({ newKeyPair: pooledKeyPair, ...opts })
  t.after(() => fake.close())
  return { fake, ctl: wechatFakeControl(fake.url) }
}

/** An adapter, a fake sharing its clock, a merchant at the fake, and a notify_url feeding the adapter. */
export async function setup(t: TestContext, opts: { mode?: 'publicKey' | 'platformCert'; timeoutMs?: number; crossBorder?: string } = {}) {
  const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
  const { fake, ctl } = await startFake(t, { clock, mode: opts.mode })
  // crossBorder: a WeChat Pay Global merchant settling in that currency, and a configuration saying so.
  const creds = fake.addMerchant({}, opts.crossBorder ? { service: 'cross_border', settlementCurrency: opts.crossBorder } : {})
  const provider = createWechatProvider({ now: clock, timeoutMs: opts.timeoutMs ?? 5000 })
  t.after(() => provider.client.close())
  const settings = opts.crossBorder ? { apiBase: fake.url, ...crossBorderSettings(opts.crossBorder) } : { apiBase: fake.url }
  const cfg: ProviderConfig = { id: 'pc_test', label: 'main', credentials: { ...creds }, settings }
  const rx = await providerHook(t, provider, () => cfg, '/hooks/wechat/pc_test')
  const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => ({
    attemptId: newId('att'),
    sessionId: newId('sess'),
    amount: 9900,
    currency: 'CNY',
    description: 'Order #42',
    channel: 'native',
    notifyUrl: rx.url,
    returnUrl: 'https://shop.example.com/c/sess_1/done', checkoutUrl: 'https://shop.example.com/c/sess_1',
    expiresAt: new Date(clock().getTime() + 3600_000),
    options: {},
    ...over,
  })
  /** A Native order placed and paid, its notification received. */
  async function paid(over: Partial<AttemptInput> = {}) {
    const a = attempt(over)
    await provider.createAttempt(cfg, a)
    await ctl.pay({ out_trade_no: a.attemptId })
    return a
  }
  return { clock, fake, ctl, creds, provider, cfg, rx, attempt, paid }
}

/** Settings of a cross-border configuration settling in `currency` (MCC 5999: miscellaneous retail). */
export const crossBorderSettings = (currency: string) => ({ service: 'cross_border', settlementCurrency: currency, merchantCategoryCode: '5999' })

/** The official account's AppSecret the fake's OAuth accepts (any non-empty one); JSAPI needs it in the credentials. */
export const APP_SECRET = 'fakeAppSecret0123456789'

/**
 * Till in live mode with one WeChat Pay configuration whose settings.apiBase is the fake (sharing
 * the test's clock, so signatures and time_expire agree), and a maker of live CNY sessions. The
 * fake delivers notifications as soon as an order is paid: nothing to tick while a page waits.
 */
export async function liveWechat(t: TestContext, o: { appSecret?: boolean; config?: Parameters<typeof startTestApp>[1]; crossBorder?: string; at?: Date } = {}) {
  const ta = await startTestApp(t, o.config)
  // `at`: the clock set before the configuration is made (the reconciliation job starts from its day).
  if (o.at) ta.clock.set(o.at)
  const { fake, ctl } = await startFake(t, { clock: ta.clock })
  // crossBorder: the configuration is a WeChat Pay Global one settling (and listing) in that currency.
  const creds = fake.addMerchant(o.appSecret === false ? {} : { appSecret: APP_SECRET }, o.crossBorder ? { service: 'cross_border', settlementCurrency: o.crossBorder } : {})
  const settings = o.crossBorder ? { apiBase: fake.url, ...crossBorderSettings(o.crossBorder) } : { apiBase: fake.url }
  const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: creds, settings })
  if (res.status !== 201) throw new Error(`configuration not created: ${res.status} ${JSON.stringify(res.body)}`)
  const configId = res.body.id as string
  async function session(body: Record<string, unknown> = {}) {
    const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: { amount: 9900, currency: 'CNY', description: 'Blue mug', ...body } })
    if (created.status !== 200) throw new Error(`checkout failed: ${created.status} ${JSON.stringify(created.body)}`)
    return created.body as { id: string; url: string }
  }
  /** The session's attempts, oldest first. */
  async function attempts(sessionId: string) {
    const { rows } = await ta.database.pool.query('select id, channel, status from attempts where session_id = $1 order by created_at, id', [sessionId])
    return rows as { id: string; channel: string; status: string }[]
  }
  /** The fake's own record of an order (code_url, h5_url, prepay_id, the request as sent). */
  const order = (attemptId: string) => fake.store.order(creds.mchId, attemptId)!
  return { ta, fake, ctl, creds, configId, session, attempts, order }
}

/** User agents as the page sees them: a desktop browser, a phone browser, and WeChat's in-app browser. */
export const UA = {
  desktop: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  phone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  wechat: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.40(0x18002831) NetType/WIFI Language/zh_CN',
}

/** When WeChat Pay publishes day D's statement (YYYY-MM-DD, Beijing): 10:00 Beijing time on D+1. */
export const wechatStatementPublishedAt = (day: string) => new Date(Date.parse(`${day}T10:00:00+08:00`) + 24 * 3600_000)
