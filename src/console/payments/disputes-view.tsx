/** A payment's disputes on its console page: status, reason, amount and evidence due date, with where to answer (Till never does). */
import { providerName } from '../../providers/index.js'
import type { ConsoleKey } from '../i18n/index.js'
import { money, when } from '../format.js'
import type { ConsoleContext } from '../views/layout.js'

export interface DisputeItem {
  id: string
  providerDisputeRef: string
  amount: number
  currency: string
  reason: string | null
  status: string
  outcome: string | null
  dueBy: Date | null
}

const tone = (d: DisputeItem) => (d.outcome === 'won' || d.outcome === 'warning_closed' || d.outcome === 'prevented' ? 'badge-ok' : d.outcome === 'lost' ? 'badge-stop' : 'badge-wait')

function statusText(c: ConsoleContext, status: string) {
  try {
    return c.t(`dispute.${status}` as ConsoleKey) ?? status
  } catch {
    return status // a status Stripe adds later: shown as it comes
  }
}

export function Disputes({ c, provider, disputes }: { c: ConsoleContext; provider: string; disputes: DisputeItem[] }) {
  if (disputes.length === 0) return null
  const { t, locale } = c
  return (
    <>
      <h2>{t('payments.disputes')}</h2>
      <table class="table">
        <thead><tr><th>{t('payments.disputes')}</th><th>{t('payments.status')}</th><th>{t('payments.disputeReason')}</th><th class="num">{t('payments.amount')}</th><th>{t('payments.disputeDueBy')}</th></tr></thead>
        <tbody>
          {disputes.map((d) => (
            <tr data-dispute={d.id}>
              <td data-label={t('payments.disputes')} class="mono">{d.providerDisputeRef}</td>
              <td data-label={t('payments.status')}><span class={`badge ${tone(d)}`}>{statusText(c, d.status)}</span></td>
              <td data-label={t('payments.disputeReason')} class="mono">{d.reason ?? ''}</td>
              <td data-label={t('payments.amount')} class="num">{money(d.amount, d.currency, locale)}</td>
              <td data-label={t('payments.disputeDueBy')}>{d.outcome ? '' : when(d.dueBy, c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>{t('payments.disputeAnswer', { provider: providerName(provider, locale) })}</p>
    </>
  )
}
