/** Settings' second panel: the buyer's emails and the merchant's time zone (services/buyer-settings.ts). */
import { base, PostForm, type ConsoleContext } from '../views/layout.js'

export interface BuyerFacts {
  receiptEmails: boolean
  refundEmails: boolean
  timeZone: string
}

export function BuyerSettingsPanel({ c, merchant, mailOn }: { c: ConsoleContext; merchant: BuyerFacts; mailOn: boolean }) {
  const { t } = c
  return (
    <PostForm c={c} action={`${base(c.mode)}/settings/buyer`} class="panel">
      <h2>{t('settings.buyerTitle')}</h2>
      {!mailOn && <p class="help">{t('settings.mailOff')}</p>}
      <label class="check"><input type="checkbox" name="receiptEmails" checked={merchant.receiptEmails} /> {t('settings.receiptEmails')}</label>
      <label class="check"><input type="checkbox" name="refundEmails" checked={merchant.refundEmails} /> {t('settings.refundEmails')}</label>
      <div class="field">
        <label for="timeZone">{t('settings.timeZone')}</label>
        <input id="timeZone" name="timeZone" type="text" maxlength={64} value={merchant.timeZone} placeholder="Asia/Shanghai" />
        <p class="help">{t('settings.timeZoneHelp')}</p>
      </div>
      <button type="submit" class="button">{t('common.save')}</button>
    </PostForm>
  )
}
