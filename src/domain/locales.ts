/** The languages Till's pages and console speak (web/locale.ts chooses one per request). */
export const LOCALES = ['en', 'zh-CN', 'zh-HK', 'ja'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v)
