/** Settings' refund limit panel: one JSON object of currencies and minor units. */
import type { RefundLimits } from '../../domain/refund-limits.js'
import { base, PostForm, type ConsoleContext } from '../views/layout.js'

export function RefundLimitsPanel({ c, limits, text }: { c: ConsoleContext; limits: RefundLimits; text?: string }) {
  const { t } = c
  const shown = text ?? (Object.keys(limits).length ? JSON.stringify(limits) : '')
  return (
    <section class="panel" aria-labelledby="refund-limits-title">
      <h2 id="refund-limits-title">{t('refundLimits.title')}</h2>
      <p class="help">{t('refundLimits.help')}</p>
      {c.can('settings') ? (
        <PostForm c={c} action={`${base(c.mode)}/settings/refund-limits`}>
          <div class="field">
            <label for="refundLimits">{t('refundLimits.field')}</label>
            <textarea id="refundLimits" name="refundLimits" rows={3} spellcheck={false} placeholder='{"JPY": 50000, "CNY": 100000}'>{shown}</textarea>
          </div>
          <button type="submit" class="button">{t('common.save')}</button>
        </PostForm>
      ) : <p><code data-refund-limits>{shown || t('common.none')}</code></p>}
    </section>
  )
}
