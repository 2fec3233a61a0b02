/** The console's frame: navigation, the test/live switch with its test-mode marker, language, account. */
import type { Child } from 'hono/jsx'
import type { Mode } from '../../domain/checkout-rules.js'
import type { Permission } from '../../domain/console-roles.js'
import type { Locale } from '../../web/locale.js'
import { Head as DocumentHead, LanguageLinks } from '../../web/views/head.js'
import { CONSOLE_ASSETS } from '../assets.js'
import type { ConsoleT } from '../i18n/index.js'

export interface ConsoleContext {
  locale: Locale
  /** The reader's IANA time zone (console.js tells it in a cookie), or UTC. */
  zone: string
  t: ConsoleT
  /** The page's path below /console/<mode> (the switch keeps it), and its query for the language switch. */
  path: string
  mode: Mode
  csrf: string
  merchantName: string
  email: string
  /** Whether the signed-in member's role allows this, in this mode (domain/console-roles.ts). */
  can: (permission: Permission) => boolean
}

export type Section = 'payments' | 'reconciliation' | 'keys' | 'webhooks' | 'providers' | 'settings' | 'activity' | 'password' | 'members' | 'sessions' | 'links' | 'security'
const SECTIONS: Section[] = ['payments', 'reconciliation', 'keys', 'webhooks', 'providers', 'settings', 'activity', 'links', 'members']
/** Sections a role may not open are not offered. */
const SECTION_NEEDS: Partial<Record<Section, Permission>> = { activity: 'activity', members: 'members.read' }

export const base = (mode: Mode) => `/console/${mode}`

/** A form posting to the console: every one carries the session's CSRF token. */
export function PostForm(p: { c: ConsoleContext; action: string; children?: Child; class?: string; confirm?: string; enctype?: 'multipart/form-data' }) {
  return (
    <form method="post" action={p.action} class={p.class} data-confirm={p.confirm} enctype={p.enctype}>
      <input type="hidden" name="csrf" value={p.c.csrf} />
      {p.children}
    </form>
  )
}

export function Notice({ kind, children }: { kind: 'ok' | 'warn' | 'error'; children?: Child }) {
  return <div class={`notice notice-${kind}`} role={kind === 'ok' ? 'status' : 'alert'}>{children}</div>
}

/** A secret shown once, with a copy button (console.js; without it the text is there to select). */
export function ShownOnce({ c, title, note, value }: { c: ConsoleContext; title: string; note: string; value: string }) {
  return (
    <section class="shown-once" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title">{title}</h2>
      <p>{note}</p>
      <div class="secret">
        <code id="shown-once-value">{value}</code>
        <button type="button" class="button button-small" data-copy="shown-once-value" hidden>{c.t('common.copy')}</button>
      </div>
    </section>
  )
}

/** The console's stylesheet and script (on the sign-in page too: it tells the server the reader's time zone). */
function Head({ title }: { title: string }) {
  return <DocumentHead title={title} stylesheets={[CONSOLE_ASSETS.css.url]} script={CONSOLE_ASSETS.js.url} />
}

export function ConsoleLayout({ c, title, section, children }: { c: ConsoleContext; title: string; section: Section; children?: Child }) {
  const { t, mode, locale } = c
  const test = mode === 'test'
  const here = `${base(mode)}${c.path}`
  return (
    <html lang={locale}>
      <Head title={`${test ? `[${t('mode.test')}] ` : ''}${title} · ${c.merchantName}`} />
      <body class={test ? 'test-mode' : 'live-mode'}>
        {test && (
          <div class="test-banner" role="note">
            <strong>{t('mode.banner')}</strong>
            <span>{t('mode.note')}</span>
          </div>
        )}
        <header class="top">
          <a class="brand" href={`${base(mode)}/payments`}>{c.merchantName}</a>
          <nav class="mode-switch" aria-label={t('mode.label')}>
            {(['test', 'live'] as const).map((m) => (
              <a href={`${base(m)}${c.path.split('/').slice(0, 2).join('/')}`} class={`mode mode-${m}`} aria-current={m === mode ? 'page' : undefined}>{t(`mode.${m}`)}</a>
            ))}
          </nav>
          <nav class="lang" aria-label={t('lang.switch')}>
            <LanguageLinks path={here} locale={locale} />
          </nav>
        </header>
        <nav class="sections" aria-label={t('nav.label')}>
          {SECTIONS.filter((s) => c.can(SECTION_NEEDS[s] ?? 'read')).map((s) => (
            <a href={`${base(mode)}/${s}`} aria-current={s === section ? 'page' : undefined}>{t(`nav.${s}`)}</a>
          ))}
        </nav>
        <main class="main">{children}</main>
        <footer class="account">
          <span>{t('nav.signedInAs', { email: c.email })}</span>
          <a href={`${base(mode)}/password`}>{t('nav.password')}</a>
          <a href={`${base(mode)}/sessions`}>{t('nav.sessions')}</a>
          <a href={`${base(mode)}/security`}>{t('nav.security')}</a>
          <PostForm c={c} action="/console/logout" class="inline">
            <button type="submit" class="link">{t('nav.signOut')}</button>
          </PostForm>
        </footer>
      </body>
    </html>
  )
}

/** A page for someone not signed in (sign-in, errors before sign-in). */
export function BareLayout({ locale, title, langPath, children }: { locale: Locale; title: string; langPath: string | null; children?: Child }) {
  return (
    <html lang={locale}>
      <Head title={title} />
      <body class="bare">
        {langPath !== null && (
          <nav class="lang lang-bare">
            <LanguageLinks path={langPath} locale={locale} />
          </nav>
        )}
        <main class="card">{children}</main>
      </body>
    </html>
  )
}
