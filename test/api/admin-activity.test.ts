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
import { ADMIN_TOKEN, startTestApp } from '../helpers/app.js'
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

test('GET /admin/v1/merchants/{id}/activity pages newest first through every entry once while entries keep arriving, and back', async (t) => {
  const ta = await startTestApp(t)
  const m = ta.merchant.id
  const q = (text: string, values: unknown[] = []) => ta.database.pool.query(text, values)
  await q(`insert into console_activity (merchant_id, mode, actor, action, subject, created_at)
    select $1, 'test', 'seed@example.com', 'key_created', 'key_' || g, now() from generate_series(1, 250) g`, [m])

  // New entries land all the while: those after the first page's read are newer than it, so no page shows them.
  let paging = true
  let arrived = 0
  const writer = (async () => {
    while (paging) {
      await q(`insert into console_activity (merchant_id, actor, action, created_at) values ($1, 'late@example.com', 'sign_in', now())`, [m])
      arrived++
    }
  })()
  const seen: number[] = []
  const pages: number[][] = []
  let cursor: string | undefined
  for (;;) {
    const res = await ta.admin('GET', `/merchants/${m}/activity?limit=30${cursor ? `&starting_after=${cursor}` : ''}`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const ids = (res.body.data as { id: number }[]).map((e) => e.id)
    seen.push(...ids)
    pages.push(ids)
    if (!res.body.hasMore) break
    cursor = String(ids[ids.length - 1])
  }
  paging = false
  await writer
  // What was there when the first page was read (the writer's entries commit in id order, so every
  // entry up to the first page's newest had committed by then; on a busy machine more than a page of
  // them may have): every one of them once, and nothing newer.
  const existing = (await q('select id from console_activity where merchant_id = $1 and id <= $2 order by id desc', [m, pages[0][0]])).rows.map((r) => Number(r.id))
  const newer = Number((await q('select count(*)::int as n from console_activity where merchant_id = $1 and id > $2', [m, pages[0][0]])).rows[0].n)
  assert.ok(arrived > 0 && newer > 0, 'entries arrived while paging')
  assert.ok(existing.length >= 250 && pages.length > 2)
  assert.deepEqual(seen, existing, 'every entry once, newest first, none missing')

  // ending_before walks back towards the newest: the page before the last one, exactly.
  const last = pages[pages.length - 1]
  const back = await ta.admin('GET', `/merchants/${m}/activity?limit=30&ending_before=${last[0]}`)
  assert.deepEqual((back.body.data as { id: number }[]).map((e) => e.id), pages[pages.length - 2])
  assert.equal(back.body.hasMore, true)
})

test('the activity list filters by member, action and time, names its errors, and is the admin token\'s only', async (t) => {
  const r = await reconTill(t)
  const { ta } = r
  const m = ta.merchant.id
  const q = (text: string, values: unknown[] = []) => ta.database.pool.query(text, values)
  const at = (iso: string) => new Date(iso)
  const rows: [string | null, string, string, Date][] = [
    ['mem_A', 'a@example.com', 'key_created', at('2026-05-01T00:00:00Z')],
    ['mem_A', 'a@example.com', 'refund_created', at('2026-05-02T00:00:00Z')],
    ['mem_B', 'b@example.com', 'key_created', at('2026-05-03T00:00:00Z')],
    [null, FINGERPRINT, 'key_revoked', at('2026-05-04T00:00:00Z')],
  ]
  for (const [member, actor, action, createdAt] of rows) {
    await q(`insert into console_activity (merchant_id, mode, actor, action, subject, member_id, detail, created_at) values ($1, 'live', $2, $3, 'x', $4, '{"note":"n"}', $5)`, [m, actor, action, member, createdAt])
  }
  const list = async (query: string) => {
    const res = await ta.admin('GET', `/merchants/${m}/activity?${query}`)
    assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`)
    return (res.body.data as { action: string; actor: string }[]).map((e) => `${e.actor} ${e.action}`)
  }
  assert.deepEqual(await list('member=mem_A'), ['a@example.com refund_created', 'a@example.com key_created'])
  assert.deepEqual(await list('action=key_created'), ['b@example.com key_created', 'a@example.com key_created'])
  assert.deepEqual(await list('action=key_created&member=mem_B'), ['b@example.com key_created'])
  assert.deepEqual(await list('since=2026-05-02T00:00:00Z&until=2026-05-04T00:00:00Z'), ['b@example.com key_created', 'a@example.com refund_created'])
  assert.deepEqual(await list('until=2026-05-02T08:00:00%2B08:00'), ['a@example.com key_created'], 'a time with its offset')

  const one = (await ta.admin('GET', `/merchants/${m}/activity?limit=1`)).body
  assert.deepEqual(Object.keys(one.data[0]).sort(), ['action', 'actor', 'createdAt', 'detail', 'id', 'ip', 'memberId', 'mode', 'subject', 'userAgent'])
  assert.equal(one.hasMore, true)

  for (const [query, status] of [['action=drop_table', 400], ['since=yesterday', 400], ['limit=101', 400], ['starting_after=abc', 400], ['starting_after=5&ending_before=9', 400], ['bogus=1', 400]] as const) {
    const res = await ta.admin('GET', `/merchants/${m}/activity?${query}`)
    assert.equal(res.status, status, query)
    assert.equal(typeof res.body.error, 'string', query)
  }
  assert.equal((await ta.admin('GET', '/merchants/mer_AAAAAAAAAAAAAAAAAAAAAAAA/activity')).status, 404)
  assert.equal((await ta.request('GET', `/admin/v1/merchants/${m}/activity`, { key: ta.merchant.testKey })).status, 401)
  assert.equal((await ta.request('GET', `/admin/v1/merchants/${m}/activity`, { key: null })).status, 401)
})
