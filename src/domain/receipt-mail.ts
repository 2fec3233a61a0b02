/**
 * The buyer's emails (a receipt when a session is paid, a short notice when a refund succeeds) in
 * the session's language: subject, plain text and HTML, from facts the sender has already formatted
 * for that language and the merchant's time zone. Pure: the outbox worker (jobs/mail.ts) sends them.
 */
import type { Locale } from './locales.js'

export type MailKind = 'receipt' | 'refund'

export interface MailFacts {
  kind: MailKind
  locale: Locale
  merchantName: string
  supportEmail: string | null
  /** The amount paid (receipt) or refunded (notice), written for the locale. */
  amount: string
  /** When it was paid or refunded, written for the locale in the merchant's zone, the zone named. */
  date: string
  receiptUrl: string
  testMode: boolean
}

export interface MailContent {
  subject: string
  text: string
  html: string
}

type Text = {
  receiptSubject: string
  refundSubject: string
  receiptIntro: string
  refundIntro: string
  amount: string
  refunded: string
  date: string
  receiptLink: string
  support: string
  test: string
}

// {merchant}, {amount} and {email} are filled in; the wording is each language's own, not a translation of the English.
const TEXT: Record<Locale, Text> = {
  en: {
    receiptSubject: 'Your receipt from {merchant}',
    refundSubject: 'Your refund from {merchant}',
    receiptIntro: 'Thank you for your payment to {merchant}.',
    refundIntro: '{merchant} has refunded {amount} to you. It goes back to the way you paid; your bank or wallet may take a few days to show it.',
    amount: 'Amount paid',
    refunded: 'Amount refunded',
    date: 'Date',
    receiptLink: 'View your receipt',
    support: 'Questions? Contact {merchant} at {email}.',
    test: 'TEST MODE: no money was moved.',
  },
  'zh-CN': {
    receiptSubject: '{merchant} 的付款收据',
    refundSubject: '{merchant} 已为您退款',
    receiptIntro: '感谢您向 {merchant} 付款。',
    refundIntro: '{merchant} 已向您退款 {amount}，款项将原路退回，银行或钱包入账可能需要几天。',
    amount: '付款金额',
    refunded: '退款金额',
    date: '日期',
    receiptLink: '查看收据',
    support: '如有疑问，请联系 {merchant}：{email}',
    test: '测试模式：未发生真实扣款。',
  },
  'zh-HK': {
    receiptSubject: '{merchant} 的付款收據',
    refundSubject: '{merchant} 已向你退款',
    receiptIntro: '多謝你向 {merchant} 付款。',
    refundIntro: '{merchant} 已向你退款 {amount}，款項會退回原付款方式，銀行或錢包可能需時數天才顯示。',
    amount: '付款金額',
    refunded: '退款金額',
    date: '日期',
    receiptLink: '查看收據',
    support: '如有查詢，請聯絡 {merchant}：{email}',
    test: '測試模式：並無實際扣款。',
  },
  ja: {
    receiptSubject: '【{merchant}】お支払いの領収書',
    refundSubject: '【{merchant}】返金のお知らせ',
    receiptIntro: '{merchant}へのお支払いありがとうございました。',
    refundIntro: '{merchant}より{amount}を返金いたしました。お支払いに使われた方法に戻ります。銀行やウォレットへの反映には数日かかる場合があります。',
    amount: 'お支払い金額',
    refunded: '返金額',
    date: '日時',
    receiptLink: '領収書を見る',
    support: 'ご不明な点は{merchant}（{email}）までお問い合わせください。',
    test: 'テストモード：実際の決済は行われていません。',
  },
}

export const fill = (s: string, vars: Record<string, string>) => s.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m)
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function receiptMail(f: MailFacts): MailContent {
  const t = TEXT[f.locale]
  const vars = { merchant: f.merchantName, amount: f.amount, email: f.supportEmail ?? '' }
  const receipt = f.kind === 'receipt'
  const subject = (f.testMode ? '[TEST] ' : '') + fill(receipt ? t.receiptSubject : t.refundSubject, vars)
  const intro = fill(receipt ? t.receiptIntro : t.refundIntro, vars)
  const rows: [string, string][] = [[receipt ? t.amount : t.refunded, f.amount], [t.date, f.date]]
  const support = f.supportEmail ? fill(t.support, vars) : null
  const text = [
    ...(f.testMode ? [t.test, ''] : []),
    intro,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    `${t.receiptLink}: ${f.receiptUrl}`,
    ...(support ? ['', support] : []),
    '',
  ].join('\n')
  const e = escapeHtml
  const html = `<!doctype html>
<html lang="${f.locale}"><head><meta charset="utf-8"><title>${e(subject)}</title></head>
<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a">
${f.testMode ? `<p style="background:#fff3cd;padding:4px 8px">${e(t.test)}</p>\n` : ''}<p>${e(intro)}</p>
<table role="presentation">${rows.map(([k, v]) => `<tr><th align="left" style="padding-right:16px">${e(k)}</th><td>${e(v)}</td></tr>`).join('')}</table>
<p><a href="${e(f.receiptUrl)}">${e(t.receiptLink)}</a></p>
${support ? `<p style="color:#555">${e(support)}</p>\n` : ''}</body></html>
`
  return { subject, text, html }
}

/** After each failed attempt, the wait before the next (about a day in all); past the last, the email has failed for good. */
export const MAIL_RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000]

/** When to try again after `attemptsMade` attempts, or null when they are spent. */
export function mailRetryAt(now: Date, attemptsMade: number, delays: readonly number[] = MAIL_RETRY_DELAYS_MS): Date | null {
  const wait = delays[attemptsMade - 1]
  return wait === undefined ? null : new Date(now.getTime() + wait)
}
