/**
 * The audit trail's completeness: every console POST route in the route list (console/permissions.ts),
 * and the two forms before signing in, posted as a member would, leaves an activity entry naming the
 * member (id and email), the address, the browser and what it touched. A route added without a step
 * here fails the walk, and so does a step whose route records nothing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ROUTE_PERMISSIONS } from '../../src/console/permissions.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, signedIn } from '../helpers/console.js'
import { invite, inviteLinkOf } from '../helpers/members.js'
import { secretOf } from '../helpers/second-factor.js'
import { totpAt } from '../helpers/totp.js'
import { lineOf, reconTill, RECON_DAY, RECON_NEXT_MORNING, reconAt, runReconciliation, unknownLine } from '../helpers/reconciliation.js'

const UA = 'AuditWalk/1.0 (a console member\'s browser)'
const EMAIL = 'ops@shop.example'
const PASSWORD = 'correct horse battery'

interface Entry { id: number; action: string; actor: string; member_id: string | null; ip: string | null; user_agent: string | null; subject: string | null }

test('every console POST route records who (member id and email), what, from which address and browser, and the object', async (t) => {
  const r = await reconTill(t)
  const { ta } = r
  const m = ta.merchant
  const paidLive = await r.payment({ paidAt: reconAt('10:00') })
  r.stub.set(RECON_DAY, { lines: [lineOf(paidLive, { amount: 9800 }), unknownLine({ at: reconAt('12:00') })] })
  ta.clock.set(RECON_NEXT_MORNING)
  const run = await runReconciliation(r)
  assert.equal(run.status, 200, JSON.stringify(run.body))
  const reportId = run.body.data[0].id as string

  assert.equal((await ta.admin('POST', `/merchants/${m.id}/password`, { password: PASSWORD, email: EMAIL })).status, 200)
  const b = new ConsoleBrowser(ta, { 'user-agent': UA })
  const one = async (sql: string, values: unknown[] = []) => (await r.q(sql, values)).rows[0]
  const memberId = async (email: string) => (await one('select id from console_members where email = $1 and removed_at is null', [email])).id as string
  const post = async (from: string, action: string, fields: Record<string, string | string[]> = {}, multipart = false) => {
    const res = await b.submit(from, action, fields, multipart ? { multipart: {} } : {})
    assert.ok(res.status < 400, `${action}: ${res.status} ${res.html.slice(0, 400)}`)
    return res
  }

  let last = Number((await one('select coalesce(max(id), 0)::int as n from console_activity')).n)
  const newEntries = async () => {
    const { rows } = await r.q('select id, action, actor, member_id, ip, user_agent, subject from console_activity where merchant_id = $1 and id > $2 order by id', [m.id, last])
    if (rows.length) last = Number(rows[rows.length - 1].id)
    return rows as Entry[]
  }

  /** Each step posts its route as a person would and names the action it must leave (and, if not the owner, who acted). */
  type Step = () => Promise<{ action: string; by?: string; subject?: string | RegExp }>
  let invitation = ''
  let joined = ''
  let resetLink = ''
  let secret = ''
  const webhook = async () => (await ta.request('GET', '/api/v1/webhook_endpoints', { key: m.testKey })).body.data[0].id as string
  const link = async () => (await ta.request('GET', '/api/v1/payment_links', { key: m.testKey })).body.data[0].id as string
  const provider = async () => (await ta.admin('GET', `/merchants/${m.id}/provider_configs`)).body.data.find((c: { label: string }) => c.label.startsWith('walk')).id as string
  const items = async () => [...(await b.get(`/console/live/reconciliation/${reportId}`)).html.matchAll(/data-item="(rci_\w+)"/g)].map((x) => x[1])

  const PUBLIC: Record<string, Step> = {
    'POST /console/login': async () => {
      assert.equal((await b.signIn(EMAIL, PASSWORD)).status, 303)
      return { action: 'sign_in', subject: EMAIL }
    },
    'POST /console/invitations/:token': async () => {
      const url = await invite(b, 'joiner@shop.example', 'viewer')
      await newEntries()
      const res = await new ConsoleBrowser(ta, { 'user-agent': UA }).post(new URL(url).pathname, { password: 'member password 1' })
      assert.equal(res.status, 303)
      joined = await memberId('joiner@shop.example')
      return { action: 'member_joined', by: 'joiner@shop.example', subject: 'joiner@shop.example' }
    },
  }

  const WALK: Record<string, Step> = {
    'POST /console/:mode/payments/:id/refund': async () => {
      const paid = await paidSession(ta, { amount: 9900, currency: 'CNY' })
      const page = await b.get(`/console/test/payments/${paid.id}`)
      const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.html)![1]
      await post(`/console/test/payments/${paid.id}`, `/console/test/payments/${paid.id}/refund`, { idempotencyKey: key, amountMinor: '500', reason: 'chipped', confirm: '1' })
      return { action: 'refund_created', subject: /^ref_/ }
    },
    'POST /console/:mode/keys': async () => {
      await post('/console/test/keys', '/console/test/keys')
      return { action: 'key_created', subject: /^key_/ }
    },
    'POST /console/:mode/keys/:id/revoke': async () => {
      const keys = (await ta.admin('GET', `/merchants/${m.id}/api_keys`)).body.data as { id: string; last4: string; mode: string }[]
      const newest = keys.find((k) => k.mode === 'test' && k.last4 !== m.testKey.slice(-4))!
      await post(`/console/test/keys/${newest.id}/revoke`, `/console/test/keys/${newest.id}/revoke`)
      return { action: 'key_revoked', subject: newest.id }
    },
    'POST /console/:mode/webhooks': async () => {
      await post('/console/test/webhooks', '/console/test/webhooks', { url: 'https://hooks.shop.example/till' })
      return { action: 'endpoint_created', subject: /^we_/ }
    },
    'POST /console/:mode/webhooks/:id/rotate': async () => {
      const id = await webhook()
      await post(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/rotate`)
      return { action: 'endpoint_secret_rotated', subject: id }
    },
    'POST /console/:mode/webhooks/:id/expire-previous': async () => {
      const id = await webhook()
      await post(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/expire-previous`)
      return { action: 'endpoint_previous_secrets_expired', subject: id }
    },
    'POST /console/:mode/webhooks/:id/state': async () => {
      const id = await webhook()
      await post(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/state`, { change: 'enable' })
      return { action: 'endpoint_updated', subject: id }
    },
    'POST /console/:mode/webhooks/:id/events': async () => {
      const id = await webhook()
      await post(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/events`, { filter: 'some', events: ['payment.succeeded'] })
      return { action: 'endpoint_updated', subject: id }
    },
    'POST /console/:mode/webhooks/:id/test': async () => {
      const id = await webhook()
      await post(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/test`, { type: 'payment.succeeded' })
      return { action: 'endpoint_test_sent', subject: id }
    },
    'POST /console/:mode/webhooks/:id/resend': async () => {
      const id = await webhook()
      const event = (await ta.request('GET', '/api/v1/events', { key: m.testKey })).body.data[0].id as string
      await post(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/resend`, { event })
      return { action: 'event_resent', subject: event }
    },
    'POST /console/:mode/webhooks/:id/delete': async () => {
      const id = await webhook()
      await post(`/console/test/webhooks/${id}/delete`, `/console/test/webhooks/${id}/delete`)
      return { action: 'endpoint_deleted', subject: id }
    },
    'POST /console/:mode/providers': async () => {
      await post('/console/live/providers/new?provider=creem', '/console/live/providers', { provider: 'creem', label: 'walk', enabled: 'on', apiKey: 'creem_test_walk', webhookSecret: 'whsec_walk' }, true)
      return { action: 'provider_config_created', subject: /^pc_/ }
    },
    'POST /console/:mode/providers/:id': async () => {
      const id = await provider()
      const res = await b.submit(`/console/live/providers/${id}`, `/console/live/providers/${id}`, { label: 'walk-2' })
      assert.equal(res.status, 303, res.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 1500))
      return { action: 'provider_config_updated', subject: id }
    },
    'POST /console/:mode/providers/:id/credentials': async () => {
      const id = await provider()
      await post(`/console/live/providers/${id}`, `/console/live/providers/${id}/credentials`, { apiKey: 'creem_test_walk2', webhookSecret: 'whsec_walk2' }, true)
      return { action: 'provider_config_updated', subject: id }
    },
    'POST /console/:mode/providers/:id/state': async () => {
      const id = await provider()
      await post('/console/live/providers', `/console/live/providers/${id}/state`, { change: 'disable' })
      return { action: 'provider_config_updated', subject: id }
    },
    'POST /console/:mode/reconciliation/:id/items/:itemId/acknowledge': async () => {
      const [item] = await items()
      await post(`/console/live/reconciliation/${reportId}`, `/console/live/reconciliation/${reportId}/items/${item}/acknowledge`, { note: 'refunded by bank transfer' })
      return { action: 'mismatch_acknowledged', subject: item }
    },
    'POST /console/:mode/reconciliation/:id/recheck': async () => {
      await post(`/console/live/reconciliation/${reportId}`, `/console/live/reconciliation/${reportId}/recheck`)
      return { action: 'reconciliation_rechecked', subject: reportId }
    },
    'POST /console/:mode/links': async () => {
      await post('/console/test/links', '/console/test/links', { amount: '25.50', currency: 'CNY', description: 'Oolong' })
      return { action: 'link_created', subject: /^plink_/ }
    },
    'POST /console/:mode/links/:id/deactivate': async () => {
      const id = await link()
      await post('/console/test/links', `/console/test/links/${id}/deactivate`)
      return { action: 'link_deactivated', subject: id }
    },
    'POST /console/:mode/links/:id/activate': async () => {
      const id = await link()
      await post('/console/test/links', `/console/test/links/${id}/activate`)
      return { action: 'link_activated', subject: id }
    },
    'POST /console/:mode/settings': async () => {
      await post('/console/test/settings', '/console/test/settings', { displayName: 'Blue Mugs', brandColor: '', supportEmail: '' }, true)
      return { action: 'settings_updated', subject: m.id }
    },
    'POST /console/:mode/settings/buyer': async () => {
      await post('/console/test/settings', '/console/test/settings/buyer', { receiptEmails: 'on', timeZone: 'Asia/Shanghai' })
      return { action: 'settings_updated', subject: m.id }
    },
    'POST /console/:mode/members/invite': async () => {
      await post('/console/test/members', '/console/test/members/invite', { email: 'later@shop.example', role: 'support' })
      return { action: 'member_invited', subject: 'later@shop.example' }
    },
    'POST /console/:mode/members/invitations/withdraw': async () => {
      invitation = /name="invitation" value="([^"]+)"/.exec((await b.get('/console/test/members')).html)![1]
      await post('/console/test/members', '/console/test/members/invitations/withdraw', { invitation })
      return { action: 'invitation_withdrawn', subject: 'later@shop.example' }
    },
    'POST /console/:mode/members/:id/role': async () => {
      await post('/console/test/members', `/console/test/members/${joined}/role`, { role: 'admin' })
      return { action: 'member_role_changed', subject: 'joiner@shop.example' }
    },
    // Password resets (the reset branch): a link an owner makes, then used by whoever holds it.
    'POST /console/:mode/members/:id/reset': async () => {
      resetLink = inviteLinkOf((await post('/console/test/members', `/console/test/members/${joined}/reset`)).html)
      return { action: 'password_reset_link_made', subject: 'joiner@shop.example' }
    },
    'POST /console/reset/:token': async () => {
      const res = await new ConsoleBrowser(ta, { 'user-agent': UA }).post(new URL(resetLink).pathname, { password: 'member password 2' })
      assert.equal(res.status, 303)
      return { action: 'password_reset', by: 'joiner@shop.example', subject: 'joiner@shop.example' }
    },
    'POST /console/:mode/members/:id/remove': async () => {
      const url = await invite(b, 'leaver@shop.example', 'viewer')
      assert.equal((await new ConsoleBrowser(ta).post(new URL(url).pathname, { password: 'member password 1' })).status, 303)
      await newEntries()
      const id = await memberId('leaver@shop.example')
      await post('/console/test/members', `/console/test/members/${id}/remove`)
      return { action: 'member_removed', subject: 'leaver@shop.example' }
    },
    'POST /console/:mode/sessions/end': async () => {
      const other = new ConsoleBrowser(ta, { 'user-agent': 'OtherDevice/2.0' })
      assert.equal((await other.signIn(EMAIL, PASSWORD)).status, 303)
      await newEntries()
      const page = await b.get('/console/test/sessions')
      const session = /OtherDevice\/2\.0[\s\S]*?name="session" value="(\w+)"/.exec(page.html)![1]
      await post('/console/test/sessions', '/console/test/sessions/end', { session })
      return { action: 'session_ended', subject: await memberId(EMAIL) }
    },
    'POST /console/:mode/password': async () => {
      await post('/console/test/password', '/console/test/password', { current: PASSWORD, password: 'a new password 2' })
      return { action: 'password_changed', subject: EMAIL }
    },
    // The second factor (the owner's own, named by their email): set up, asked at a new sign-in, turned off.
    'POST /console/:mode/security/enrol': async () => {
      secret = secretOf((await post('/console/test/security', '/console/test/security/enrol')).html)!
      return { action: 'second_factor_enrolment_started', subject: EMAIL }
    },
    'POST /console/:mode/security/confirm': async () => {
      await post('/console/test/security', '/console/test/security/confirm', { code: totpAt(secret, ta.clock()) })
      return { action: 'second_factor_enabled', subject: EMAIL }
    },
    'POST /console/second-factor': async () => {
      const other = new ConsoleBrowser(ta, { 'user-agent': UA })
      assert.equal((await other.signIn(EMAIL, 'a new password 2')).status, 303)
      await newEntries()
      ta.clock.advance(30_000) // a code is taken once: the next one
      const res = await other.submit('/console/second-factor', '/console/second-factor', { code: totpAt(secret, ta.clock()) })
      assert.equal(res.status, 303)
      return { action: 'second_factor_passed', subject: EMAIL }
    },
    'POST /console/:mode/security/disable': async () => {
      ta.clock.advance(30_000)
      await post('/console/test/security', '/console/test/security/disable', { code: totpAt(secret, ta.clock()) })
      return { action: 'second_factor_disabled', subject: EMAIL }
    },
    'POST /console/:mode/security/require': async () => {
      await post('/console/test/security', '/console/test/security/require', { required: '0' })
      return { action: 'second_factor_policy_changed', subject: m.id }
    },
    'POST /console/:mode/members/:id/second-factor/reset': async () => {
      await post('/console/test/members', `/console/test/members/${joined}/second-factor/reset`)
      return { action: 'second_factor_reset', subject: 'joiner@shop.example' }
    },
    'POST /console/:mode/settings/refund-limits': async () => {
      await post('/console/test/settings', '/console/test/settings/refund-limits', { refundLimits: '{"JPY": 50000}' })
      return { action: 'refund_limits_changed', subject: m.id }
    },
    // The owner hands over last of the team's steps: an admin may not change members.
    'POST /console/:mode/members/:id/transfer': async () => {
      await post('/console/test/members', `/console/test/members/${joined}/transfer`)
      return { action: 'ownership_transferred', subject: 'joiner@shop.example' }
    },
    'POST /console/logout': async () => {
      await post('/console/test/keys', '/console/logout')
      return { action: 'sign_out', subject: EMAIL }
    },
  }

  const posts = Object.keys(ROUTE_PERMISSIONS).filter((k) => k.startsWith('POST '))
  assert.deepEqual(posts.filter((k) => !WALK[k]), [], 'a console POST route without a step here: add one, with the activity entry it records')
  for (const k of Object.keys(PUBLIC)) assert.ok(ta.app.hasRoute({ method: 'POST', url: k.slice(5) }), k)
  // A step of a route outside the list (before signing in) runs where this build has the route.
  const walked = (k: string) => posts.includes(k) || ta.app.hasRoute({ method: 'POST', url: k.slice(5) })

  const missing: string[] = []
  for (const [route, step] of [...Object.entries(PUBLIC), ...Object.entries(WALK).filter(([k]) => walked(k))]) {
    const want = await step()
    const by = want.by ?? EMAIL
    const entries = await newEntries()
    const e = entries.find((x) => x.action === want.action)
    const who = await one('select id from console_members where email = $1', [by])
    if (!e) missing.push(`${route}: no ${want.action} entry (got ${entries.map((x) => x.action).join(', ') || 'none'})`)
    else {
      const subjectOk = want.subject instanceof RegExp ? want.subject.test(e.subject ?? '') : e.subject === want.subject
      if (e.actor !== by || e.member_id !== who.id || !e.ip || e.user_agent !== UA || !subjectOk) missing.push(`${route}: ${JSON.stringify(e)}`)
    }
  }
  assert.deepEqual(missing, [])
})

test('an entry the database refuses is logged whole at error, and the change it tells of still stands', async (t) => {
  const lines: string[] = []
  const ta = await startTestApp(t, {}, { log: (line) => void lines.push(line) })
  const { m, browser } = await signedIn(ta)
  await ta.database.pool.query(`create function refuse_activity() returns trigger language plpgsql as $$ begin raise exception 'activity refused'; end $$;
    create trigger refuse_activity before insert on console_activity for each row when (new.action = 'key_created') execute function refuse_activity()`)
  const made = await browser.submit('/console/test/keys', '/console/test/keys')
  assert.equal(made.status, 201, 'the key is made and shown')
  const keys = (await ta.admin('GET', `/merchants/${m.id}/api_keys`)).body.data as unknown[]
  assert.equal(keys.length, 3)
  const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('activity entry not recorded'))
  assert.ok(logged, 'logged')
  assert.equal(logged.level, 50, 'at error')
  assert.deepEqual({ action: logged.activity.action, actor: logged.activity.actor, merchantId: logged.activity.merchantId }, { action: 'key_created', actor: m.email, merchantId: m.id })
  assert.match(logged.activity.subject, /^key_/)
})
