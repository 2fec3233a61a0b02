/** After a live pick: the provider's QR code, the way to its hosted page, or its in-app payment (WeChat's JSAPI). */
import { raw } from 'hono/html'
import { Layout, type PageContext } from './layout.js'
import { Amount, AwaitPayment } from './parts.js'

/** Who is paid, and for what: the context a customer checks before scanning or confirming. */
interface PaymentContext {
  merchantName: string
  description: string | null
}

function PayTo({ t, v }: PageContext & { v: PaymentContext }) {
  return <p class="description">{v.description ? `${t('checkout.payTo', { merchant: v.merchantName })} · ${v.description}` : t('checkout.payTo', { merchant: v.merchantName })}</p>
}

export interface QrView extends PaymentContext {
  sessionId: string
  provider: string
  amount: string
  /** SVG made by `qrcode` from the provider's payment URL: our own markup, so trusted. */
  svg: string
  /** How to scan, in the provider's words (its module's scanHelp). */
  help?: string
}

/** The page moves on by itself once the payment is confirmed; "I have paid" does the same without the script. */
export function QrPage(p: PageContext & { v: QrView }) {
  const { t, v } = p
  return (
    <Layout {...p} title={t('live.scan', { provider: v.provider })} langPath={`/c/${v.sessionId}`}>
      <h1>{t('live.scan', { provider: v.provider })}</h1>
      <PayTo {...p} />
      <Amount label={t('checkout.amountDue')} value={v.amount} />
      <figure class="qr" role="img" aria-label={t('live.qrLabel', { provider: v.provider })}>{raw(v.svg)}</figure>
      {v.help && <p class="qr-help">{v.help}</p>}
      <AwaitPayment sessionId={v.sessionId} text={t('live.autoAdvance')} />
      <div class="actions">
        <a class="button primary" href={`/c/${v.sessionId}/done`}>{t('live.paidDone')}</a>
        <a class="button quiet" href={`/c/${v.sessionId}`}>{t('live.back')}</a>
      </div>
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

export interface InAppView extends PaymentContext {
  sessionId: string
  /** The provider's id: till.js picks the app's payment bridge by it (data-<id>-pay). */
  provider: string
  providerName: string
  /** The app the payment runs in, as customers call it. */
  app: string
  amount: string
  /** What the app's bridge takes (WeixinJSBridge's getBrandWCPayRequest: appId, timeStamp, nonceStr, package, signType, paySign). */
  params: Record<string, string>
}

/**
 * Inside the provider's app: till.js hands the parameters (JSON in a data attribute, escaped like
 * any attribute, never executed) to the app's bridge. Its answer is not authoritative: "ok" goes to
 * the relay, which waits for the provider's confirmation; anything else back to the checkout page.
 */
export function InAppPage(p: PageContext & { v: InAppView }) {
  const { t, v } = p
  const bridge = { [`data-${v.provider}-pay`]: JSON.stringify(v.params) }
  return (
    <Layout {...p} title={t('inApp.title', { app: v.app })} langPath={`/c/${v.sessionId}`}>
      <h1>{t('inApp.title', { app: v.app })}</h1>
      <PayTo {...p} />
      <Amount label={t('checkout.amountDue')} value={v.amount} />
      <p class="notice" role="status" {...bridge} data-done-url={`/c/${v.sessionId}/done`} data-back-url={`/c/${v.sessionId}`}>
        {t('inApp.help', { provider: v.providerName })}
      </p>
      <div class="actions">
        <a class="button primary" href={`/c/${v.sessionId}/done`}>{t('live.paidDone')}</a>
        <a class="button quiet" href={`/c/${v.sessionId}`}>{t('live.back')}</a>
      </div>
    </Layout>
  )
}
