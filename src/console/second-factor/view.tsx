/** The second factor's pages: Two-factor (enrol, recovery codes, turn off), the code after the password, and step-up. */
import { raw } from 'hono/html'
import type { Locale } from '../../web/locale.js'
import type { ConsoleT } from '../i18n/index.js'
import { base, BareLayout, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'

const CodeField = ({ name, label, recovery }: { name: string; label: string; recovery?: boolean }) => (
  <div class="field">
    <label for="code">{label}</label>
    <input id="code" name={name} type="text" inputmode={recovery ? 'text' : 'numeric'} autocomplete="one-time-code" maxlength={recovery ? 20 : 6} required autofocus />
  </div>
)

export interface SecurityView {
  c: ConsoleContext
  enrolled: boolean
  codesLeft: number
  /** The enrolment under way: its secret, URI and QR code (an SVG `qrcode` made: our own markup). */
  enrolment: { secret: string; uri: string; svg: string } | null
  /** Just made: shown once. */
  recoveryCodes: string[] | null
  required: boolean
  /** The owner's switch, when the member may change it. */
  canRequire: boolean
  error: string | null
  notice: string | null
}

export function SecurityPage(v: SecurityView) {
  const { c } = v
  const { t } = c
  const here = `${base(c.mode)}/security`
  return (
    <ConsoleLayout c={c} title={t('security.pageTitle')} section="security">
      <h1>{t('security.pageTitle')}</h1>
      {v.notice && <Notice kind="ok">{v.notice}</Notice>}
      {v.error && <Notice kind="error">{v.error}</Notice>}
      {v.required && !v.enrolled && <Notice kind="warn">{t('security.required')}</Notice>}
      <p>{t('security.intro')}</p>
      {v.recoveryCodes && (
        <section class="shown-once" aria-labelledby="recovery-title">
          <h2 id="recovery-title">{t('security.codesTitle')}</h2>
          <p>{t('security.codesNote')}</p>
          <ol class="recovery-codes" id="recovery-codes">{v.recoveryCodes.map((code) => <li><code>{code}</code></li>)}</ol>
        </section>
      )}
      {v.enrolled && <p data-second-factor="on">{t('security.on', { count: String(v.codesLeft) })}</p>}
      {!v.enrolled && !v.enrolment && (
        <>
          <p data-second-factor="off">{t('security.off')}</p>
          <PostForm c={c} action={`${here}/enrol`}>
            <button type="submit" class="button">{t('security.start')}</button>
          </PostForm>
        </>
      )}
      {v.enrolment && (
        <PostForm c={c} action={`${here}/confirm`} class="panel">
          <p>{t('security.scan')}</p>
          <figure class="qr" role="img" aria-label={t('security.qr')}>{raw(v.enrolment.svg)}</figure>
          <dl>
            <dt>{t('security.key')}</dt><dd><code id="totp-secret">{v.enrolment.secret}</code></dd>
            <dt>{t('security.uri')}</dt><dd><code id="totp-uri">{v.enrolment.uri}</code></dd>
          </dl>
          <CodeField name="code" label={t('security.code')} />
          <button type="submit" class="button">{t('security.confirm')}</button>
        </PostForm>
      )}
      {v.enrolled && !v.required && (
        <PostForm c={c} action={`${here}/disable`} class="panel">
          <h2>{t('security.disableTitle')}</h2>
          <CodeField name="code" label={t('security.code')} />
          <button type="submit" class="button button-danger">{t('security.disable')}</button>
        </PostForm>
      )}
      {v.canRequire && (
        <PostForm c={c} action={`${here}/require`} class="panel">
          <h2>{t('security.requireTitle')}</h2>
          <label><input type="checkbox" name="required" value="1" checked={v.required} /> {t('security.requireLabel')}</label>
          <button type="submit" class="button">{t('common.save')}</button>
        </PostForm>
      )}
    </ConsoleLayout>
  )
}

/** After the password: the code (or a recovery code) before the session can do anything else. */
export function ChallengePage(v: { locale: Locale; t: ConsoleT; csrf: string; next: string | null; error: string | null }) {
  const { t } = v
  return (
    <BareLayout locale={v.locale} title={t('challenge.pageTitle')} langPath="/console/second-factor">
      <h1>{t('challenge.title')}</h1>
      {v.error && <Notice kind="error">{v.error}</Notice>}
      <p>{t('challenge.intro')}</p>
      <form method="post" action="/console/second-factor">
        <input type="hidden" name="csrf" value={v.csrf} />
        {v.next && <input type="hidden" name="next" value={v.next} />}
        <CodeField name="code" label={t('challenge.code')} recovery />
        <button type="submit" class="button">{t('challenge.submit')}</button>
      </form>
      <form method="post" action="/console/logout">
        <input type="hidden" name="csrf" value={v.csrf} />
        <button type="submit" class="link">{t('nav.signOut')}</button>
      </form>
    </BareLayout>
  )
}

/**
 * Step-up: the action's own form again, to the same address, its fields carried as hidden inputs
 * (the CSRF token among them) with the code added, so confirming carries the action out.
 */
export function StepUpPage(v: { c: ConsoleContext; action: string; fields: [string, string][]; droppedFiles: boolean; error: string | null; codeName: string }) {
  const { t } = v.c
  return (
    <ConsoleLayout c={v.c} title={t('stepup.pageTitle')} section="security">
      <h1>{t('stepup.pageTitle')}</h1>
      {v.error && <Notice kind="error">{v.error}</Notice>}
      <p>{t('stepup.intro')}</p>
      {v.droppedFiles && <Notice kind="warn">{t('stepup.files')}</Notice>}
      <form method="post" action={v.action} class="panel" data-step-up>
        {v.fields.map(([name, value]) => <input type="hidden" name={name} value={value} />)}
        <CodeField name={v.codeName} label={t('challenge.code')} recovery />
        <button type="submit" class="button">{t('stepup.submit')}</button>
      </form>
    </ConsoleLayout>
  )
}
