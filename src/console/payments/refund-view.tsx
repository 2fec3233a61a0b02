/** The refund's confirmation: what will be refunded, in the currency's major unit, and what will be left. */
import { money } from '../format.js'
import { base, ConsoleLayout, PostForm, type ConsoleContext } from '../views/layout.js'

/** Minor units of `currency`: paid, refunded (succeeded), being refunded (pending), and left to refund. */
export interface RefundTotals {
  currency: string
  paid: number
  refunded: number
  pending: number
  left: number
}

export function RefundConfirmPage({ c, sessionId, totals, amount, reason, idempotencyKey }: {
  c: ConsoleContext; sessionId: string; totals: RefundTotals; amount: number; reason: string; idempotencyKey: string
}) {
  const { t, locale } = c
  const m = (n: number) => money(n, totals.currency, locale)
  const here = `${base(c.mode)}/payments/${sessionId}`
  const title = t('refundConfirm.title', { amount: m(amount) })
  return (
    <ConsoleLayout c={c} title={title} section="payments">
      <h1>{title}</h1>
      <p class="mono">{sessionId}</p>
      <section class="panel">
        <dl class="facts">
          <dt>{t('refundConfirm.paid')}</dt><dd>{m(totals.paid)}</dd>
          {totals.refunded > 0 && <><dt>{t('refundConfirm.refunded')}</dt><dd>{m(totals.refunded)}</dd></>}
          {totals.pending > 0 && <><dt>{t('refundConfirm.pending')}</dt><dd>{m(totals.pending)}</dd></>}
          <dt>{t('refundConfirm.this')}</dt><dd><strong>{m(amount)}</strong></dd>
          <dt>{t('refundConfirm.left')}</dt><dd>{m(totals.left - amount)}</dd>
          {reason && <><dt>{t('payments.reason')}</dt><dd>{reason}</dd></>}
        </dl>
        <p>{t('refundConfirm.note')}</p>
        <div class="actions">
          <PostForm c={c} action={`${here}/refund`}>
            <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
            <input type="hidden" name="amountMinor" value={String(amount)} />
            <input type="hidden" name="reason" value={reason} />
            <input type="hidden" name="confirm" value="1" />
            <button type="submit" class="button button-danger">{t('refundConfirm.submit', { amount: m(amount) })}</button>
          </PostForm>
          <a class="button button-secondary" href={here}>{t('refundConfirm.back')}</a>
        </div>
      </section>
    </ConsoleLayout>
  )
}
