import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'

export function PasswordPage({ c, error, done }: { c: ConsoleContext; error: string | null; done: boolean }) {
  const { t } = c
  return (
    <ConsoleLayout c={c} title={t('password.pageTitle')} section="password">
      <h1>{t('password.pageTitle')}</h1>
      {done && <Notice kind="ok">{t('password.done')}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <PostForm c={c} action={`${base(c.mode)}/password`} class="panel">
        <input type="text" name="username" autocomplete="username" value={c.email} hidden />
        <div class="field">
          <label for="current">{t('password.current')}</label>
          <input id="current" name="current" type="password" autocomplete="current-password" required />
        </div>
        <div class="field">
          <label for="password">{t('password.new')}</label>
          <input id="password" name="password" type="password" autocomplete="new-password" minlength={8} required />
          <p class="help">{t('password.help')}</p>
        </div>
        <button type="submit" class="button">{t('password.submit')}</button>
      </PostForm>
    </ConsoleLayout>
  )
}
