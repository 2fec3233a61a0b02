import type { Branding } from '../../services/merchant-settings.js'
import type { RefundLimits } from '../../domain/refund-limits.js'
import { BuyerSettingsPanel, type BuyerFacts } from './buyer-view.js'
import { RefundLimitsPanel } from './refund-limits-view.js'
import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'

interface MerchantFacts extends BuyerFacts {
  name: string
  displayName: string | null
  brandColor: string | null
  supportEmail: string | null
  supportUrl: string | null
}

export function SettingsPage({ c, merchant, branding, error, saved, mailOn, refundLimits, refundLimitsText }: { c: ConsoleContext; merchant: MerchantFacts; branding: Branding; error: string | null; saved: boolean; mailOn: boolean; refundLimits: RefundLimits; refundLimitsText?: string }) {
  const { t } = c
  return (
    <ConsoleLayout c={c} title={t('settings.pageTitle')} section="settings">
      <h1>{t('settings.pageTitle')}</h1>
      <p class="muted">{t('settings.intro')}</p>
      {saved && <Notice kind="ok">{t('settings.saved')}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <PostForm c={c} action={`${base(c.mode)}/settings`} enctype="multipart/form-data" class="panel">
        <div class="field">
          <label for="displayName">{t('settings.displayName')}</label>
          <input id="displayName" name="displayName" type="text" maxlength={100} value={merchant.displayName ?? ''} placeholder={merchant.name} />
          <p class="help">{t('settings.displayNameHelp', { name: merchant.name })}</p>
        </div>
        <div class="field">
          <label for="brandColor">{t('settings.brandColor')}</label>
          <input id="brandColor" name="brandColor" type="text" pattern="#[0-9a-fA-F]{6}" maxlength={7} value={merchant.brandColor ?? ''} placeholder="#0b5cad" />
        </div>
        <div class="field">
          <label for="supportEmail">{t('settings.supportEmail')}</label>
          <input id="supportEmail" name="supportEmail" type="email" value={merchant.supportEmail ?? ''} />
          <p class="help">{t('settings.supportEmailHelp')}</p>
        </div>
        <div class="field">
          <label for="supportUrl">{t('settings.supportUrl')}</label>
          <input id="supportUrl" name="supportUrl" type="url" value={merchant.supportUrl ?? ''} placeholder="https://" />
          <p class="help">{t('settings.supportUrlHelp')}</p>
        </div>
        <div class="field">
          <label for="logo">{t('settings.logo')}</label>
          {branding.logoUrl && <img class="logo-preview" src={branding.logoUrl} alt={branding.name} />}
          <input id="logo" name="logo" type="file" accept="image/png,image/jpeg,image/webp" />
          <p class="help">{t('settings.logoHelp')}</p>
          {branding.logoUrl && <label class="check"><input type="checkbox" name="removeLogo" /> {t('settings.removeLogo')}</label>}
        </div>
        <button type="submit" class="button">{t('common.save')}</button>
      </PostForm>
      <BuyerSettingsPanel c={c} merchant={merchant} mailOn={mailOn} />
      <RefundLimitsPanel c={c} limits={refundLimits} text={refundLimitsText} />
    </ConsoleLayout>
  )
}
