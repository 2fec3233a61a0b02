/** Languages of the customer-facing pages: choosing one, and looking strings up in its catalogue. */
import { en, type Catalogue, type MessageKey } from './en.js'
import { zhCN } from './zh-CN.js'

export const LOCALES = ['en', 'zh-CN'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'
export const CATALOGUES: Record<Locale, Catalogue> = { en, 'zh-CN': zhCN }

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v)

/**
 * The best of our languages for an Accept-Language header, by q-value. Every Chinese tag (zh,
 * zh-CN, zh-Hans, zh-TW, …) gets Simplified Chinese: the closest we have.
 */
export function negotiate(header: string | undefined): Locale {
  if (!header) return DEFAULT_LOCALE
  const ranges = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';')
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      const weight = q ? Number(q.slice(2)) : 1
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index }
    })
    .filter((r) => r.tag && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
  for (const { tag } of ranges) {
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN'
    if (tag === 'en' || tag.startsWith('en-')) return 'en'
  }
  return DEFAULT_LOCALE
}

export type Translate = (key: MessageKey, vars?: Record<string, string>) => string

/** A lookup in one catalogue; `{name}` placeholders are filled from `vars` (the caller's markup escapes them). */
export function translator(locale: Locale): Translate {
  const catalogue = CATALOGUES[locale]
  return (key, vars = {}) => catalogue[key].replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole)
}

// Making a formatter costs about 80 µs, formatting with one about 1: one per language, kept.
const timeFormats = new Map<Locale, Intl.DateTimeFormat>()

/** A moment in the page's language, in UTC (the server does not know the customer's time zone). */
export function formatTime(d: Date, locale: Locale): string {
  let format = timeFormats.get(locale)
  if (!format) timeFormats.set(locale, (format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC', hourCycle: 'h23' })))
  return `${format.format(d)} UTC`
}
