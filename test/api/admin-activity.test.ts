/**
 * The admin API in the merchants' activity logs: every changing admin route (the table in
 * api/admin/activity.ts, which the admin API will not start without) leaves an entry in the log of
 * the merchant it touched, naming the token by its fingerprint only, the operator's name when given,
 * the address and the user agent.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { ADMIN_ACTIONS } from '../../src/api/admin/activity.js'
import { ADMIN_TOKEN } from '../helpers/app.js'
import { creemCredentials } from '../helpers/credentials.js'
import { lineOf, reconAt, reconTill, RECON_DAY, RECON_NEXT_MORNING } from '../helpers/reconciliation.js'

const UA = 'till-cli/walk'
const FINGERPRINT = `admin:${createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 8)}`

test('every changing admin route records its action in the merchant\'s log: the token by fingerprint, the operator, address and user agent', async (t) => {
  const r = await reconTill(t)
  const { ta } = r
  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    ta.request(method, `/admin/v1${path}`, { key: ADMIN_TOKEN, body, headers: { 'user-agent': UA, ...headers } })
  const paid = await r.payment({ paidAt: reconAt('10:00') })
  r.stub.set(RECON_DAY, { lines: [lineOf(paid)] })
  ta.clock.set(RECON_NEXT_MORNING)

  let merchant = ta.merchant.id
  let keyId = ''
  let configId = ''
  /** Each step calls its route and says which merchant's log and which object the entry names. */
  const WALK: Record<string, () => Promise<{ status: number; merchantId: string; subject: string }>> = {
    'POST /merchants': async () => {
      const res = await admin('POST', '/merchants', { name: 'Walked', email: 'walked@shop.example' })
      merchant = res.body.id
      return { status: res.status, merchantId: merchant, subject: merchant }
    },
    'POST /merchants/:id/password': async () => {
      const res = await admin('POST', `/merchants/${merchant}/password`, { password: 'a long password' }, { 'till-operator': 'Ada Lovelace' })
      return { status: res.status, merchantId: merchant, subject: 'walked@shop.example' }
    },
    'POST /merchants/:id/api_keys': async () => {
      const res = await admin('POST', `/merchants/${merchant}/api_keys`, { mode: 'live' })
      keyId = res.body.id
      return { status: res.status, merchantId: merchant, subject: keyId }
    },
    'DELETE /merchants/:id/api_keys/:keyId': async () => {
      const res = await admin('DELETE', `/merchants/${merchant}/api_keys/${keyId}`)
      return { status: res.status, merchantId: merchant, subject: keyId }
    },
    'POST /merchants/:id/provider_configs': async () => {
      const res = await admin('POST', `/merchants/${merchant}/provider_configs`, { provider: 'creem', label: 'main', credentials: creemCredentials() })
      configId = res.body.id
      return { status: res.status, merchantId: merchant, subject: configId }
    },
    'PATCH /merchants/:id/provider_configs/:configId': async () => {
      const res = await admin('PATCH', `/merchants/${merchant}/provider_configs/${configId}`, { enabled: false, credentials: creemCredentials() })
      return { status: res.status, merchantId: merchant, subject: configId }
    },
    'POST /merchants/:id/webhook_endpoints': async () => {
      const res = await admin('POST', `/merchants/${merchant}/webhook_endpoints`, { mode: 'test', url: 'https://hooks.shop.example/till' })
      return { status: res.status, merchantId: merchant, subject: res.body.id }
    },
    'POST /reconciliation/runs': async () => {
      const res = await admin('POST', '/reconciliation/runs', { date: RECON_DAY, providerConfigId: r.configId })
      return { status: res.status, merchantId: ta.merchant.id, subject: res.body.data?.[0]?.id }
    },
  }
  assert.deepEqual(Object.keys(WALK).sort(), Object.keys(ADMIN_ACTIONS).sort(), 'a step for every changing admin route')

  const wrong: string[] = []
  for (const [route, step] of Object.entries(WALK)) {
    const before = Number((await r.q('select coalesce(max(id), 0)::int as n from console_activity', [])).rows[0].n)
    const done = await step()
    assert.ok(done.status < 300, `${route}: ${done.status}`)
    const { rows } = await r.q('select merchant_id, actor, action, subject, ip, user_agent, member_id, detail from console_activity where id > $1', [before])
    const e = rows.find((x) => x.action === ADMIN_ACTIONS[route])
    if (!e || rows.length !== 1 || e.merchant_id !== done.merchantId || e.actor !== FINGERPRINT || e.subject !== done.subject || !e.ip || e.user_agent !== UA || e.member_id !== null) {
      wrong.push(`${route}: ${JSON.stringify(rows)}`)
    }
  }
  assert.deepEqual(wrong, [])

  const named = await r.q(`select detail from console_activity where action = 'password_set'`, [])
  assert.equal(named.rows[0].detail.operator, 'Ada Lovelace', 'the operator\'s name, when given')
  const { rows } = await r.q('select actor, detail::text from console_activity', [])
  assert.ok(rows.every((x) => !x.actor.includes(ADMIN_TOKEN) && !x.detail.includes(ADMIN_TOKEN)), 'the token itself is never written')
  const refused = await admin('POST', `/merchants/${merchant}/api_keys`, { mode: 'prod' })
  assert.equal(refused.status, 400)
  assert.equal((await r.q(`select count(*)::int as n from console_activity where action = 'key_created' and merchant_id = $1`, [merchant])).rows[0].n, 1, 'a refused request records nothing')
})
