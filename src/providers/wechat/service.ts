/**
 * Which WeChat Pay service a configuration speaks: the mainland API v3 (CNY, `api.mch.weixin.qq.com`,
 * `/v3/pay/…`) or the cross-border one, WeChat Pay Global (`apihk.mch.weixin.qq.com`, `/v3/global/…`),
 * where the merchant lists prices in its own currency and the customer pays in CNY at WeChat's rate.
 * Settings, not credentials: the service, the settlement currency and the MCC are not secrets.
 */
import { InvalidField } from '../../domain/errors.js'
import type { Currency } from '../../domain/money.js'
import { API_BASE_LABEL, checkSettings, type Fields } from '../credentials.js'
import type { SettingField } from '../module.js'

export const SERVICES = ['mainland', 'cross_border'] as const
export type WechatService = (typeof SERVICES)[number]

/** Spec currencies a cross-border merchant can settle (and so list) in; CNY is the mainland service's. */
export const CROSS_BORDER_CURRENCIES = ['HKD', 'JPY', 'USD', 'EUR'] as const satisfies readonly Currency[]
export type CrossBorderCurrency = (typeof CROSS_BORDER_CURRENCIES)[number]

export interface WechatSettings {
  service: WechatService
  /** Cross-border only: the one currency WeChat settles the merchant in, which is also the listed one. */
  settlementCurrency?: CrossBorderCurrency
  /** Cross-border only: the merchant category code WeChat assigned (`merchant_category_code`, 4 digits). */
  merchantCategoryCode?: string
}

/** The settings a configuration may have (the module's settings schema: validation, CLI help). */
export const SETTINGS = [
  { name: 'apiBase', label: API_BASE_LABEL, help: 'a sandbox or a local fake; default https://api.mch.weixin.qq.com' },
  { name: 'service', label: { en: 'Service', 'zh-CN': '服务类型' }, help: 'mainland (default) or cross_border (WeChat Pay Global)', choices: ['mainland', 'cross_border'] },
  { name: 'settlementCurrency', label: { en: 'Settlement currency (WeChat Pay Global)', 'zh-CN': '结算币种（境外）' }, help: `cross_border: ${CROSS_BORDER_CURRENCIES.join(', ')}`, choices: ['', ...CROSS_BORDER_CURRENCIES] },
  { name: 'merchantCategoryCode', label: { en: 'Merchant category code (WeChat Pay Global)', 'zh-CN': '商户类别码 MCC（境外）' }, help: 'cross_border: the 4-digit MCC WeChat Pay assigned' },
] as const satisfies readonly SettingField[]

export function wechatSettingsOf(settings: Fields): WechatSettings {
  if (settings.service !== 'cross_border') return { service: 'mainland' }
  return {
    service: 'cross_border',
    settlementCurrency: settings.settlementCurrency as CrossBorderCurrency,
    merchantCategoryCode: settings.merchantCategoryCode as string,
  }
}

/**
 * The currencies a configuration can list. A cross-border merchant lists in its settlement
 * currency: WeChat settles in one currency only and advises listing in it (multi-currency pricing
 * is a separate product Till does not configure).
 */
export function listedCurrencies(settings: Fields): readonly Currency[] {
  const s = wechatSettingsOf(settings)
  return s.service === 'mainland' ? ['CNY'] : s.settlementCurrency ? [s.settlementCurrency] : []
}

/** settings.service (default `mainland`); cross-border also needs settlementCurrency and merchantCategoryCode. */
export function validateWechatSettings(settings: Fields, allowPrivate: boolean) {
  checkSettings(settings, allowPrivate, SETTINGS.map((f) => f.name))
  const service = settings.service ?? 'mainland'
  if (!SERVICES.includes(service as WechatService)) throw new InvalidField('settings.service', `must be one of ${SERVICES.join(', ')}`)
  if (service === 'mainland') {
    for (const k of ['settlementCurrency', 'merchantCategoryCode'] as const) {
      if (settings[k] !== undefined) throw new InvalidField(`settings.${k}`, 'applies to the cross_border service only')
    }
    return
  }
  if (!CROSS_BORDER_CURRENCIES.includes(settings.settlementCurrency as CrossBorderCurrency)) {
    throw new InvalidField('settings.settlementCurrency', `must be one of ${CROSS_BORDER_CURRENCIES.join(', ')}`)
  }
  if (typeof settings.merchantCategoryCode !== 'string' || !/^\d{4}$/.test(settings.merchantCategoryCode)) {
    throw new InvalidField('settings.merchantCategoryCode', 'must be the 4-digit merchant category code WeChat Pay assigned')
  }
}

/**
 * A configuration's service and settlement currency are fixed once saved: its records were paid
 * (and must be refunded) through that API in that currency. Another service is another configuration.
 */
export function checkWechatSettingsChange(before: Fields, after: Fields) {
  const a = wechatSettingsOf(before)
  const b = wechatSettingsOf(after)
  if (a.service !== b.service) throw new InvalidField('settings.service', 'cannot change once saved: make a new configuration for the other service')
  if (a.settlementCurrency !== b.settlementCurrency) throw new InvalidField('settings.settlementCurrency', 'cannot change once saved: make a new configuration for the other currency')
}
