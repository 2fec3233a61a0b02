/** The sign-in page: "Email", "Password", "Sign in". */
import type { Locale } from '../../web/locale.js'
import type { ConsoleT } from '../i18n/index.js'
import { BareLayout, Notice } from '../views/layout.js'

export interface LoginView {
  locale: Locale
  t: ConsoleT
  token: string
  error: string | null
  notice: string | null
  email: string
  next: string | null
}

export function LoginPage(v: LoginView) {
  const { t } = v
  return (
    <BareLayout locale={v.locale} title={t('login.pageTitle')} langPath="/console/login">
      <h1>{t('login.title')}</h1>
      {v.notice && <Notice kind="ok">{v.notice}</Notice>}
      {v.error && <Notice kind="error">{v.error}</Notice>}
      <form method="post" action="/console/login">
        <input type="hidden" name="token" value={v.token} />
        {v.next && <input type="hidden" name="next" value={v.next} />}
        <div class="field">
          <label for="email">{t('login.email')}</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={v.email} />
        </div>
        <div class="field">
          <label for="password">{t('login.password')}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <button type="submit" class="button">{t('login.submit')}</button>
      </form>
      <p><a href="/console/forgot">{t('login.forgot')}</a></p>
    </BareLayout>
  )
}
