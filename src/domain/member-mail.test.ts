import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LOCALES } from './locales.js'
import { memberMail } from './member-mail.js'

const facts = { merchantName: 'Acme <b>&</b>', email: 'dev@example.com', link: 'https://till.example/console/reset/abc?x=1&y=2', expires: '28 Nov 2026, 12:00 UTC' }

test('every language and kind names the merchant, the account, the link and when it expires, in both parts', () => {
  for (const locale of LOCALES) {
    for (const kind of ['invitation', 'password_reset'] as const) {
      const m = memberMail({ ...facts, kind, locale })
      assert.ok(m.subject.includes('Acme <b>&</b>'), m.subject)
      for (const part of [m.text, m.html]) {
        assert.ok(part.includes('dev@example.com'), `${locale} ${kind}`)
        assert.ok(part.includes('28 Nov 2026, 12:00 UTC'), `${locale} ${kind}`)
      }
      assert.ok(m.text.includes(facts.link))
      assert.ok(m.html.includes('href="https://till.example/console/reset/abc?x=1&#38;y=2"'))
      assert.ok(m.html.includes(`lang="${locale}"`))
    }
  }
})

test('the HTML part escapes what the merchant wrote', () => {
  const m = memberMail({ ...facts, kind: 'invitation', locale: 'en' })
  assert.ok(!m.html.includes('<b>&</b>'))
  assert.ok(m.html.includes('Acme &#60;b&#62;&#38;&#60;/b&#62;'))
})
