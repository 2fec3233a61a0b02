/** /l/<link_id>: what a payment link asks for, and the button that makes the buyer's session. */
import type { Branding } from '../../services/merchant-settings.js'
import { Layout, type PageContext } from '../views/layout.js'
import { Amount } from '../views/parts.js'

export interface LinkView {
  linkId: string
  testMode: boolean
  merchantName: string
  brand: Branding | null
  description: string | null
  currency: string
  /** The fixed amount, formatted; null when the buyer enters one. */
  amount: string | null
  /** The buyer's range, formatted, when the buyer enters the amount. */
  range: { min: string; max: string } | null
  /** What the buyer typed last, when it was refused. */
  typed: string | null
  badAmount: boolean
  /** The optional email field (only when a receipt would be sent): what was typed, and whether it was refused. */
  email: { typed: string; bad: boolean } | null
  formToken: string
}

export function LinkPage(p: PageContext & { v: LinkView }) {
  const { t, v } = p
  return (
    <Layout {...p} title={t('checkout.pageTitle', { merchant: v.merchantName })} testMode={v.testMode} brand={v.brand}>
      <h1 class="merchant">{t('checkout.payTo', { merchant: v.merchantName })}</h1>
      {v.description && <p class="description">{v.description}</p>}
      <form method="post" action={`/l/${v.linkId}`} class="link-form">
        <input type="hidden" name="token" value={v.formToken} />
        {v.amount !== null && <Amount label={t('checkout.amountDue')} value={v.amount} />}
        {v.range && (
          <p class="link-amount">
            <label for="link-amount">{t('link.enterAmount', { currency: v.currency })}</label>
            <input id="link-amount" name="amount" inputmode="decimal" autocomplete="off" required value={v.typed ?? ''}
              aria-describedby="link-range" aria-invalid={v.badAmount ? 'true' : undefined} />
            <span id="link-range" class={v.badAmount ? 'hint error' : 'hint'} role={v.badAmount ? 'alert' : undefined}>
              {t(v.badAmount ? 'link.badAmount' : 'link.range', v.range)}
            </span>
          </p>
        )}
        {v.email && (
          <p class="link-amount">
            <label for="link-email">{t('link.email')}</label>
            <input id="link-email" name="email" type="email" autocomplete="email" value={v.email.typed}
              aria-describedby="link-email-hint" aria-invalid={v.email.bad ? 'true' : undefined} />
            <span id="link-email-hint" class={v.email.bad ? 'hint error' : 'hint'} role={v.email.bad ? 'alert' : undefined}>
              {t(v.email.bad ? 'link.badEmail' : 'link.emailHint')}
            </span>
          </p>
        )}
        <button type="submit" class="button primary">{t('link.continue')}</button>
      </form>
    </Layout>
  )
}
