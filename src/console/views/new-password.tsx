/** The form a one-time link opens (an invitation, a password reset): the account's email for password managers, and the new password. */
import type { ConsoleT } from '../i18n/index.js'

export function NewPasswordForm({ t, action, email, submit }: { t: ConsoleT; action: string; email: string; submit: string }) {
  return (
    <form method="post" action={action}>
      <input type="text" name="username" autocomplete="username" value={email} hidden />
      <div class="field">
        <label for="password">{t('password.new')}</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength={8} required />
        <p class="help">{t('password.help')}</p>
      </div>
      <button type="submit" class="button">{submit}</button>
    </form>
  )
}
