/**
 * The mail a console member is sent: an invitation to join a merchant's team or a password reset,
 * each carrying a one-time link, in the console's language (subject, plain text and HTML, escaped).
 * Pure: the mail job (jobs/member-mail.ts) fills in the facts and sends it.
 */
import type { Locale } from './locales.js'
import { escapeHtml, fill, type MailContent } from './receipt-mail.js'

export type MemberMailKind = 'invitation' | 'password_reset'

export interface MemberMailFacts {
  kind: MemberMailKind
  locale: Locale
  merchantName: string
  /** The address it goes to: the account the link is for. */
  email: string
  link: string
  /** When the link stops working, written for the locale in the merchant's zone, the zone named. */
  expires: string
}

type Text = { subject: string; intro: string; action: string; expires: string; ignore: string }

// {merchant}, {email} and {expires} are filled in; each language's own wording, not a translation of the English.
const TEXT: Record<Locale, Record<MemberMailKind, Text>> = {
  en: {
    invitation: {
      subject: 'Join {merchant} on Till',
      intro: 'You are invited to the payment console of {merchant}, as {email}.',
      action: 'Set your password and join',
      expires: 'The link works once, until {expires}.',
      ignore: 'Not expecting this? Ignore this email: nothing happens without the link.',
    },
    password_reset: {
      subject: 'Reset your password for {merchant} on Till',
      intro: 'A new password was asked for your console account {email} at {merchant}.',
      action: 'Set a new password',
      expires: 'The link works once, until {expires}. Setting a new password signs you out everywhere.',
      ignore: 'Did not ask for this? Ignore this email: your password stays as it is.',
    },
  },
  'zh-CN': {
    invitation: {
      subject: '邀请您加入 {merchant} 的 Till 控制台',
      intro: '{merchant} 邀请您以 {email} 加入其支付控制台。',
      action: '设置密码并加入',
      expires: '此链接仅可使用一次，有效期至 {expires}。',
      ignore: '如果您并未预期收到此邮件，请忽略：没有链接，什么都不会发生。',
    },
    password_reset: {
      subject: '重置您在 {merchant} 的 Till 控制台密码',
      intro: '有人为您在 {merchant} 的控制台账号 {email} 申请了重置密码。',
      action: '设置新密码',
      expires: '此链接仅可使用一次，有效期至 {expires}。设置新密码后，您在所有设备上都会退出登录。',
      ignore: '如果这不是您本人的操作，请忽略此邮件，您的密码不会改变。',
    },
  },
  'zh-HK': {
    invitation: {
      subject: '邀請你加入 {merchant} 的 Till 控制台',
      intro: '{merchant} 邀請你以 {email} 加入其付款控制台。',
      action: '設定密碼並加入',
      expires: '此連結只可使用一次，有效期至 {expires}。',
      ignore: '如你並無預期收到此電郵，請不用理會：沒有連結，甚麼都不會發生。',
    },
    password_reset: {
      subject: '重設你在 {merchant} 的 Till 控制台密碼',
      intro: '有人為你在 {merchant} 的控制台帳戶 {email} 申請重設密碼。',
      action: '設定新密碼',
      expires: '此連結只可使用一次，有效期至 {expires}。設定新密碼後，你會在所有裝置登出。',
      ignore: '如這並非你本人的操作，請不用理會此電郵，你的密碼不會改變。',
    },
  },
  ja: {
    invitation: {
      subject: '【{merchant}】Till コンソールへのご招待',
      intro: '{merchant}の決済コンソールに {email} として招待されました。',
      action: 'パスワードを設定して参加する',
      expires: 'このリンクは一度だけ、{expires}まで有効です。',
      ignore: 'お心当たりがない場合は、このメールを破棄してください。リンクを開かない限り何も起こりません。',
    },
    password_reset: {
      subject: '【{merchant}】Till コンソールのパスワード再設定',
      intro: '{merchant}のコンソールアカウント {email} のパスワード再設定が申請されました。',
      action: '新しいパスワードを設定する',
      expires: 'このリンクは一度だけ、{expires}まで有効です。新しいパスワードを設定すると、すべての端末でログアウトされます。',
      ignore: 'お心当たりがない場合は、このメールを破棄してください。パスワードは変更されません。',
    },
  },
}

export function memberMail(f: MemberMailFacts): MailContent {
  const t = TEXT[f.locale][f.kind]
  const vars = { merchant: f.merchantName, email: f.email, expires: f.expires }
  const subject = fill(t.subject, vars)
  const [intro, expires] = [fill(t.intro, vars), fill(t.expires, vars)]
  const text = [intro, '', `${t.action}: ${f.link}`, '', expires, '', t.ignore, ''].join('\n')
  const e = escapeHtml
  const html = `<!doctype html>
<html lang="${f.locale}"><head><meta charset="utf-8"><title>${e(subject)}</title></head>
<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a">
<p>${e(intro)}</p>
<p><a href="${e(f.link)}">${e(t.action)}</a></p>
<p>${e(expires)}</p>
<p style="color:#555">${e(t.ignore)}</p>
</body></html>
`
  return { subject, text, html }
}
