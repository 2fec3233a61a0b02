/**
 * Members' mail (docs/console.md#invitations-and-password-resets-by-email) through a real SMTP server
 * on loopback (aiosmtpd): an invitation is queued with its link sealed, sent in the inviter's console
 * language, retried when refused, and its link dropped once sent.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { createMailer } from '../../src/jobs/mail.js'
import { startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, signedIn } from '../helpers/console.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'

const FROM = 'console@till.test'

async function setup(t: TestContext) {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: FROM })
  const mailer = createMailer(ta.deps)
  t.after(() => mailer.stop())
  const { m, browser } = await signedIn(ta)
  const rows = async () => (await ta.deps.db.$client.query('select kind, recipient, locale, status, attempts, link_box, last_error from member_emails order by created_at')).rows
  return { sink, ta, mailer, owner: browser, m, rows }
}

/** The Team page's mail cell of an invitation: its state, and the mail server's answer when shown. */
async function mailCell(owner: { get(path: string): Promise<{ html: string }> }, email: string) {
  const html = (await owner.get('/console/test/members')).html
  const row = new RegExp(`<tr data-invitation="${email.replace('.', '\\.')}">[\\s\\S]*?</tr>`).exec(html)![0]
  const cell = /<td data-label="[^"]*" data-mail="(\w+)">([\s\S]*?)<\/td>/.exec(row)!
  return { state: cell[1], text: cell[2] }
}

/** The one link in a mail's plain-text part. */
const linkIn = (text: string) => /(http:\/\/\S+\/console\/\S+)/.exec(text)![1]

test('an invitation is mailed in the inviter\'s language, its link sealed until sent and gone after; the link works', async (t) => {
  const { sink, ta, mailer, owner, rows } = await setup(t)
  owner.cookies.set('till_lang', 'zh-CN')
  const res = await owner.submit('/console/test/members', '/console/test/members/invite', { email: 'dev@example.com', role: 'developer' })
  assert.equal(res.status, 200)
  assert.match(res.html, /dev@example\.com/)
  assert.doesNotMatch(res.html, /shown-once-value/, 'mailed: no link to copy')
  assert.deepEqual(await mailCell(owner, 'dev@example.com'), { state: 'pending', text: '发送中' })
  const [queued] = await rows()
  assert.deepEqual([queued.kind, queued.recipient, queued.locale, queued.status], ['invitation', 'dev@example.com', 'zh-CN', 'pending'])
  assert.match(queued.link_box, /^v1:/)

  assert.equal(await mailer.pump(), 1)
  const [mail] = await sink.received(1)
  assert.deepEqual(mail.rcptTos, ['dev@example.com'])
  assert.equal(mail.headers.Subject, '邀请您加入 Shop 的 Till 控制台')
  assert.deepEqual(mail.parts.map((p) => p.type), ['text/plain', 'text/html'])
  const link = linkIn(mail.parts[0].content)
  assert.match(link, /\/console\/invitations\/[\w-]{43}$/)
  assert.ok(mail.parts[1].content.includes(`href="${link}"`))
  assert.ok(!queued.link_box.includes(new URL(link).pathname.split('/').pop()!), 'the token is not stored in clear')
  const [sent] = await rows()
  assert.deepEqual([sent.status, sent.link_box], ['sent', null], 'the sealed link is dropped once sent')
  assert.deepEqual(await mailCell(owner, 'dev@example.com'), { state: 'sent', text: '已发送' })

  const dev = new ConsoleBrowser(ta)
  assert.equal((await dev.post(new URL(link).pathname, { password: 'a developer password' })).status, 303)
  assert.equal((await dev.signIn('dev@example.com', 'a developer password')).status, 303)
})

test('a refused invitation is tried again and arrives once, in English for an English console', async (t) => {
  const { sink, ta, mailer, owner, rows } = await setup(t)
  await sink.answer('refuse')
  await owner.submit('/console/test/members', '/console/test/members/invite', { email: 'ops@example.com', role: 'viewer' })
  assert.equal(await mailer.pump(), 1)
  const [failed] = await rows()
  assert.deepEqual([failed.status, failed.attempts], ['pending', 1])
  assert.match(failed.last_error, /554/)
  assert.match(failed.link_box, /^v1:/, 'kept sealed for the retry')
  // The owner sees that it has not arrived, and why.
  const waiting = await mailCell(owner, 'ops@example.com')
  assert.equal(waiting.state, 'pending')
  assert.match(waiting.text, /^Not delivered yet: trying again<div class="muted" data-mail-error="true">Message failed: 554 5\.7\.1 refused by the test<\/div>$/)
  await sink.answer('accept')
  ta.clock.advance(60_000)
  assert.equal(await mailer.pump(), 1)
  const [mail] = await sink.received(1)
  assert.equal(mail.headers.Subject, 'Join Shop on Till')
  assert.deepEqual(await mailCell(owner, 'ops@example.com'), { state: 'sent', text: 'Sent' })
  assert.match(mail.parts[0].content, /as ops@example\.com/)
  assert.equal(await mailer.pump(), 0)
  assert.equal(sink.messages.length, 1)
})

test('a reset mail is not tried after its link expires: then it has failed for good and its sealed link is gone', async (t) => {
  const { sink, ta, mailer, m, rows } = await setup(t)
  await sink.answer('refuse')
  const { requestReset } = await import('../../src/services/password-reset.js')
  const asked = await requestReset(ta.deps, { email: m.email, ip: '127.0.0.1', locale: 'en' })
  assert.equal(asked.result, 'ok')
  await asked.issued
  // Refused at 0, then tried 1, 5 and 15 minutes after each failure (21 min in all); the next wait (1 h) is past the 30 minutes.
  for (const wait of [0, 60_000, 300_000, 900_000]) {
    ta.clock.advance(wait)
    assert.equal(await mailer.pump(), 1)
  }
  const [failed] = await rows()
  assert.deepEqual([failed.kind, failed.status, failed.attempts, failed.link_box], ['password_reset', 'failed', 4, null])
  ta.clock.advance(3_600_000)
  assert.equal(await mailer.pump(), 0)
  assert.equal(sink.messages.length, 0)
})
