/** The console's payment links: make one, list them with their URL and QR codes, deactivate or activate. */
import { CURRENCY_CODES } from '../../domain/money.js'
import type { PaymentLinkT } from '../../domain/payment-link-resources.js'
import { money } from '../format.js'
import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'

function amountText(l: PaymentLinkT, c: ConsoleContext) {
  if (l.amount !== null) return money(l.amount, l.currency, c.locale)
  return c.t('links.range', { min: money(l.minAmount!, l.currency, c.locale), max: money(l.maxAmount!, l.currency, c.locale) })
}

export function LinksPage({ c, links, error, notice }: { c: ConsoleContext; links: PaymentLinkT[]; error: string | null; notice: string | null }) {
  const { t } = c
  const here = `${base(c.mode)}/links`
  return (
    <ConsoleLayout c={c} title={t('links.pageTitle')} section="links">
      <h1>{t('links.pageTitle')}</h1>
      <p class="muted">{t('links.intro')}</p>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {links.length === 0 ? <p>{t('links.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('links.url')}</th><th>{t('links.amount')}</th><th>{t('links.paid')}</th><th>{t('links.status')}</th><th></th></tr></thead>
          <tbody>
            {links.map((l) => (
              <tr data-link={l.id}>
                <td data-label={t('links.url')}>
                  <code id={`url-${l.id}`}>{l.url}</code>{' '}
                  <button type="button" class="button button-small" data-copy={`url-${l.id}`} hidden>{t('common.copy')}</button>
                  {l.description && <div class="muted">{l.description}</div>}
                </td>
                <td data-label={t('links.amount')}>{amountText(l, c)}</td>
                <td data-label={t('links.paid')}>{l.maxPayments === null ? String(l.paidCount) : `${l.paidCount} / ${l.maxPayments}`}</td>
                <td data-label={t('links.status')}>
                  <span class={l.active ? 'badge badge-ok' : 'badge badge-stop'}>{t(l.active ? 'links.active' : 'links.inactive')}</span>
                </td>
                <td>
                  <a href={`${here}/${l.id}/qr.png`} download>{t('links.qrPng')}</a>{' '}
                  <a href={`${here}/${l.id}/qr.svg`} download>{t('links.qrSvg')}</a>
                  <PostForm c={c} action={`${here}/${l.id}/${l.active ? 'deactivate' : 'activate'}`}>
                    <button type="submit" class={l.active ? 'link button-danger' : 'link'}>{t(l.active ? 'links.deactivate' : 'links.activate')}</button>
                  </PostForm>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2 id="create">{t('links.create')}</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <PostForm c={c} action={here} class="panel">
        <div class="field">
          <label for="amount">{t('links.amount')}</label>
          <input id="amount" name="amount" inputmode="decimal" placeholder="25.50" />
          <p class="help">{t('links.amountHelp')}</p>
        </div>
        <div class="field">
          <label for="minAmount">{t('links.min')}</label>
          <input id="minAmount" name="minAmount" inputmode="decimal" />
        </div>
        <div class="field">
          <label for="maxAmount">{t('links.max')}</label>
          <input id="maxAmount" name="maxAmount" inputmode="decimal" />
        </div>
        <div class="field">
          <label for="currency">{t('links.currency')}</label>
          <select id="currency" name="currency">{CURRENCY_CODES.map((code) => <option value={code}>{code}</option>)}</select>
        </div>
        <div class="field">
          <label for="description">{t('links.description')}</label>
          <input id="description" name="description" maxlength={200} />
        </div>
        <div class="field">
          <label for="maxPayments">{t('links.maxPayments')}</label>
          <input id="maxPayments" name="maxPayments" inputmode="numeric" />
        </div>
        <button type="submit" class="button">{t('links.create')}</button>
      </PostForm>
    </ConsoleLayout>
  )
}
