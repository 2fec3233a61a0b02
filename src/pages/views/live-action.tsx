/** After a live pick: the provider's QR code, or the way to its hosted page. */
import { raw } from 'hono/html'
import { Layout, type PageContext } from './layout.js'
import { Amount } from './parts.js'

export interface QrView {
  sessionId: string
  provider: string
  amount: string
  /** SVG made by `qrcode` from the provider's payment URL: our own markup, so trusted. */
  svg: string
}

export function QrPage(p: PageContext & { v: QrView }) {
  const { t, v } = p
  return (
    <Layout {...p} title={t('live.scan', { provider: v.provider })} langPath={`/c/${v.sessionId}`}>
      <h1>{t('live.scan', { provider: v.provider })}</h1>
      <Amount label={t('checkout.amountDue')} value={v.amount} />
      <figure class="qr">{raw(v.svg)}</figure>
      <p>
        <a class="button primary" href={`/c/${v.sessionId}/done`}>{t('live.paidDone')}</a>
      </p>
    </Layout>
  )
}

export interface RedirectView {
  sessionId: string
  provider: string
  url: string
}

/** A page, not a 303: form-action would block a redirect to the provider's origin after the form post. */
export function RedirectPage(p: PageContext & { v: RedirectView }) {
  const { t, v } = p
  return (
    <Layout {...p} title={t('live.redirecting', { provider: v.provider })} refreshTo={v.url} langPath={`/c/${v.sessionId}`}>
      <h1>{t('live.redirecting', { provider: v.provider })}</h1>
      <p>
        <a class="button primary" href={v.url}>{t('live.continue', { provider: v.provider })}</a>
      </p>
    </Layout>
  )
}
