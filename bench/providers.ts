/**
 * `npm run bench -- providers`: a customer's way through checkout with Alipay and with WeChat Pay,
 * each against its local fake (`till fake alipay`, `till fake wechat`, here in this process) and one
 * Till process in live mode: the session made (API), the checkout page, the press on the provider
 * (Till places the QR order: Alipay's precreate, WeChat Pay's Native order), then the fake paying it
 * and notifying Till (signature checked, session paid, event appended in one commit). Flows run one
 * after another (latency, not throughput), the two providers alternating by round. Beside each step's
 * p50/p99 seen by the client: Till's own handling time for the route (its http_request_duration
 * metric, mean), so the fake's share of a step is the difference.
 * Knobs: BENCH_PROVIDER_FLOWS (100 per provider), BENCH_ROUNDS (3).
 */
import os from 'node:os'
import { alipayFakeControl } from '../src/providers/alipay/fake/client.js'
import { startAlipayFake } from '../src/providers/alipay/fake/index.js'
import { wechatFakeControl } from '../src/providers/wechat/fake/client.js'
import { startWechatFake } from '../src/providers/wechat/fake/index.js'
import { openBenchDb } from './db.js'
import { context, fmt, ms, table } from './report.js'
import { ADMIN_TOKEN, benchMerchant, startTill } from './till.js'

const FLOWS = Number(process.env.BENCH_PROVIDER_FLOWS) || 100
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36'
const STEPS = ['session (API)', 'checkout page', 'press the provider: QR order placed', 'paid at the fake → notification handled'] as const
/** The route each step is served by, for Till's own handling time. */
const ROUTES = ['/api/v1/checkout', '/c/:id', '/c/:id/choose', '/hooks/:provider/:configId']

interface Provider {
  id: 'alipay' | 'wechat'
  name: string
  configId: string
  pay(attemptId: string): Promise<unknown>
  close(): Promise<void>
}

async function json(res: Response) {
  const body = await res.json() as Record<string, any>
  if (res.status >= 300) throw new Error(`${res.url}: ${res.status} ${JSON.stringify(body)}`)
  return body
}

/** Till's mean handling time per route so far (seconds summed and counted by its metrics). */
async function routeTimes(base: string): Promise<Map<string, { sum: number; count: number }>> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const out = new Map<string, { sum: number; count: number }>()
  for (const m of text.matchAll(/^http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
    const route = /route="([^"]*)"/.exec(m[2])?.[1] ?? ''
    const e = out.get(route) ?? { sum: 0, count: 0 }
    e[m[1] as 'sum' | 'count'] += Number(m[3])
    out.set(route, e)
  }
  return out
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

export async function benchProviders(): Promise<string> {
  const db = await openBenchDb()
  const till = await startTill(db.url, { PROVIDER_ALLOW_PRIVATE: '1' })
  const providers: Provider[] = []
  try {
    const m = await benchMerchant(till.base)
    const admin = (path: string, body: object) => fetch(`${till.base}/admin/v1${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    }).then(json)
    const config = async (provider: string, credentials: object, apiBase: string) =>
      (await admin(`/merchants/${m.id}/provider_configs`, { provider, label: 'main', credentials, settings: { apiBase } })).id as string

    const alipay = await startAlipayFake({})
    const app = alipay.addApp({ mode: 'publicKey' })
    const alipayCtl = alipayFakeControl(alipay.url)
    providers.push({
      id: 'alipay', name: 'Alipay (precreate QR)',
      configId: await config('alipay', { appId: app.appId, privateKey: app.privateKey, alipayPublicKey: app.alipayPublicKey }, alipay.url),
      pay: (attemptId) => alipayCtl.pay({ out_trade_no: attemptId, app_id: app.appId }),
      close: () => alipay.close(),
    })
    const wechat = await startWechatFake({})
    const wechatCtl = wechatFakeControl(wechat.url)
    providers.push({
      id: 'wechat', name: 'WeChat Pay (Native QR)',
      configId: await config('wechat', wechat.addMerchant({}), wechat.url),
      pay: (attemptId) => wechatCtl.pay({ out_trade_no: attemptId }),
      close: () => wechat.close(),
    })

    const pool = db.database.pool
    /** One customer's way through; each step's milliseconds. */
    const flow = async (p: Provider): Promise<number[]> => {
      const times: number[] = []
      const step = async <T>(fn: () => Promise<T>) => {
        const t0 = performance.now()
        const out = await fn()
        times.push(performance.now() - t0)
        return out
      }
      const session = await step(() => fetch(`${till.base}/api/v1/checkout`, {
        method: 'POST', headers: { authorization: `Bearer ${m.liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 8888, currency: 'CNY', description: 'Blue mug', providerHints: { [p.id]: 'main' } }),
      }).then(json))
      const page = await step(() => fetch(`${till.base}/c/${session.id}`, { headers: { 'user-agent': DESKTOP } }).then((r) => r.text()))
      const token = /name="token" value="([^"]+)"/.exec(page)![1]
      const chosen = await step(() => fetch(`${till.base}/c/${session.id}/choose`, {
        method: 'POST', redirect: 'manual', headers: { 'user-agent': DESKTOP, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, provider: p.id }).toString(),
      }).then(async (r) => ({ status: r.status, html: await r.text() })))
      if (chosen.status !== 200 || !chosen.html.includes('<svg')) throw new Error(`${p.id}: no QR code page (${chosen.status})`)
      const { rows } = await pool.query('select id from attempts where session_id = $1', [session.id])
      // The fake notifies as it pays, and answers once Till has acknowledged (or refused) the notification.
      await step(() => p.pay(rows[0].id))
      const { rows: paid } = await pool.query('select status from sessions where id = $1', [session.id])
      if (paid[0].status !== 'paid') throw new Error(`${p.id}: session ${session.id} is ${paid[0].status} after the notification`)
      return times
    }

    for (const p of providers) for (let i = 0; i < 10; i++) await flow(p) // warm-up
    const timings = new Map<string, number[][]>(providers.map((p) => [p.id, STEPS.map(() => [])]))
    const handled = new Map<string, number[]>(providers.map((p) => [p.id, ROUTES.map(() => 0)]))
    for (let round = 0; round < ROUNDS; round++) {
      for (const p of providers) {
        const before = await routeTimes(till.base)
        for (let i = 0; i < Math.ceil(FLOWS / ROUNDS); i++) (await flow(p)).forEach((t, k) => timings.get(p.id)![k].push(t))
        const after = await routeTimes(till.base)
        ROUTES.forEach((r, k) => (handled.get(p.id)![k] += (after.get(r)?.sum ?? 0) - (before.get(r)?.sum ?? 0)))
      }
    }
    const rows = providers.flatMap((p) => STEPS.map((s, k) => {
      const t = timings.get(p.id)![k]
      const tillMs = (1000 * handled.get(p.id)![k]) / t.length
      return [p.name, s, ms(pct(t, 50)), ms(pct(t, 99)), ms(t.reduce((a, b) => a + b, 0) / t.length), ms(tillMs), `\`${ROUTES[k]}\``]
    }))
    for (const r of rows) console.log(`  ${r.slice(0, 6).join(' | ')}`)
    return [
      '## Alipay and WeChat Pay: checkout and notification',
      context([
        `${db.describe}; one Till process (live mode, pool 10, LOG_LEVEL=warn); each provider's fake in the bench's process on loopback, with the real clock`,
        `${fmt(timings.get('alipay')![0].length)} flows per provider, one after another, the providers alternating in ${ROUNDS} rounds after 10 to warm up; load average during the run ${os.loadavg()[0].toFixed(1)}`,
      ]),
      '',
      table(['provider', 'step', 'p50', 'p99', 'mean', "Till's own handling, mean", 'route'], rows),
      '',
      "Till's own handling: the route's http_request_duration_seconds (from /metrics) over the requests of these flows, so what a step took beyond it is the fake's work (placing the order, signing and sending the notification) and the round trips. The notification step counts from the bench asking the fake to pay until the fake has Till's answer to its notification; the session is then `paid`.",
    ].join('\n')
  } finally {
    for (const p of providers) await p.close()
    await till.stop()
    await db.close()
  }
}
