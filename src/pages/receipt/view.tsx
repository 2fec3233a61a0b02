/** /r/<record_id>: what the customer keeps after paying. */
import type { Child } from 'hono/jsx'
import type { Branding } from '../../services/merchant-settings.js'
import { Layout, type PageContext } from '../views/layout.js'
import { LocalTime } from '../views/parts.js'

export interface ReceiptView {
  recordId: string
  testMode: boolean
  merchantName: string
  brand?: Branding | null
  description: string | null
  amount: string
  currency: string
  refunded: string | null
  /** What the customer paid in another currency, and the rate, when the provider reported it. */
  charged: string | null
  status: 'paid' | 'partially_refunded' | 'refunded' | 'refunding'
  paidAt: string
  paidAtIso: string
}

export function ReceiptPage(p: PageContext & { v: ReceiptView }) {
  const { t, v } = p
  const rows: [string, Child][] = [
    [t('receipt.merchant'), v.merchantName],
    ...(v.description ? [[t('receipt.description'), v.description] as [string, string]] : []),
    [t('receipt.amount'), v.amount],
    [t('receipt.currency'), v.currency],
    ...(v.charged ? [[t('receipt.charged'), <span class="charged">{v.charged}</span>] as [string, Child]] : []),
    ...(v.refunded ? [[t('receipt.refundedAmount'), v.refunded] as [string, string]] : []),
    [t('receipt.status'), <span class={`status status-${v.status}`}>{t(`record.${v.status}`)}</span>],
    [t('receipt.paidAt'), <LocalTime iso={v.paidAtIso} text={v.paidAt} />],
    [t('receipt.number'), <code>{v.recordId}</code>],
  ]
  return (
    <Layout {...p} title={t('receipt.pageTitle', { merchant: v.merchantName })} testMode={v.testMode} brand={v.brand}>
      <h1>{t('receipt.title')}</h1>
      {v.refunded ? (
        // After a refund the headline says both what was paid and what came back.
        <p class="amount-big">
          <span class="amount-paid">{t('receipt.headPaid', { amount: v.amount })}</span>
          <span class="amount-refunded">{t('receipt.headRefunded', { amount: v.refunded })}</span>
        </p>
      ) : (
        <p class="amount-big">{v.amount}</p>
      )}
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div class="fact">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p class="hint">{t('receipt.keep')}</p>
    </Layout>
  )
}
