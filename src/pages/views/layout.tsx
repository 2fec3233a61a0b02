/** The frame of every page: language, viewport, stylesheet, test-mode banner, language switch. */
import type { Child } from 'hono/jsx'
import type { Branding } from '../../services/merchant-settings.js'
import type { Locale } from '../../web/locale.js'
import { Head, LanguageLinks } from '../../web/views/head.js'
import { ASSETS } from '../assets.js'
import type { Translate } from '../i18n/index.js'
import { brandStylesheet } from '../logos/route.js'

export interface PageContext {
  locale: Locale
  t: Translate
}

export interface LayoutProps extends PageContext {
  title: string
  /** Test-mode pages carry an unmistakable banner. */
  testMode?: boolean
  /** The page shows the mock provider's buttons, which the banner then explains. */
  testButtons?: boolean
  /** Sends the browser on without a script (a provider's hosted page). */
  refreshTo?: string
  /**
   * The page the language switch reloads: this one by default; another for pages that answer a
   * form post (reloading those would post nothing); null hides the switch.
   */
  langPath?: string | null
  /** The merchant's logo, colour and support email (console Settings), on the checkout and receipt. */
  brand?: Branding | null
  children?: Child
}

export function Layout({ locale, t, title, testMode, testButtons, refreshTo, langPath = '', brand, children }: LayoutProps) {
  const brandCss = brandStylesheet(brand?.brandColor ?? null)
  return (
    <html lang={locale}>
      <Head
        title={testMode ? `[${t('test.banner')}] ${title}` : title}
        stylesheets={[ASSETS.css.url, brandCss]}
        script={ASSETS.js.url}
        refreshTo={refreshTo}
      />
      <body class={testMode ? 'test-mode' : undefined}>
        {testMode && (
          <div class="test-banner" role="note">
            <strong>{t('test.banner')}</strong>
            <span>{t(testButtons ? 'test.noteButtons' : 'test.note')}</span>
          </div>
        )}
        {langPath !== null && (
          <nav class="lang-switch" aria-label={t('lang.switch')}>
            <LanguageLinks path={langPath} locale={locale} />
          </nav>
        )}
        <main class="card">
          {brand?.logoUrl && <p class="brand-logo"><img src={brand.logoUrl} alt={brand.name} /></p>}
          {children}
        </main>
        <footer class="footer">
          {brand?.supportEmail && <p class="support">{t('footer.support')} <a href={`mailto:${brand.supportEmail}`}>{brand.supportEmail}</a></p>}
          {t('footer.secure')}
        </footer>
      </body>
    </html>
  )
}

