/**
 * The languages of every page Till serves (hosted pages and console), and the one a request gets:
 * `?lang=` (remembered in a cookie), then the cookie, then the session's `locale` (its pages
 * only), then Accept-Language.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '../domain/locales.js'

export { DEFAULT_LOCALE, isLocale, LOCALES, type Locale }
/** Each language in itself, for the language switch. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文', 'zh-HK': '繁體中文', ja: '日本語' }
export const LANG_COOKIE = 'till_lang'
/** The reader's time zone, as the console's script reads it from the browser (web/i18n.ts timeZone checks it). */
export const TZ_COOKIE = 'till_tz'

/** Chinese written in Traditional characters: Taiwan, Hong Kong, Macao, or the script named. */
const TRADITIONAL = /^zh-(?:hant|tw|hk|mo)(?:-|$)/

/**
 * One of our languages for a language tag, or null: Traditional Chinese for zh-Hant, zh-TW, zh-HK
 * and zh-MO (zh-Hans-HK is Simplified: the script outranks the region), Simplified for every other
 * Chinese tag, Japanese for ja, English for en. Case does not matter.
 */
export function localeOf(tag: string): Locale | null {
  const t = tag.trim().toLowerCase()
  if (t === 'zh' || t.startsWith('zh-')) return TRADITIONAL.test(t) ? 'zh-HK' : 'zh-CN'
  if (t === 'ja' || t.startsWith('ja-')) return 'ja'
  if (t === 'en' || t.startsWith('en-')) return 'en'
  return null
}

/** The best of our languages for an Accept-Language header, by q-value (each tag as localeOf reads it). */
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
    const locale = localeOf(tag)
    if (locale) return locale
  }
  return DEFAULT_LOCALE
}

export function cookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * `chosen` is what the merchant named for a session's pages: it outranks the browser's
 * Accept-Language, while the customer's own pick in the language switch outranks it.
 */
export function pageLocale(req: FastifyRequest, reply: FastifyReply, chosen?: string | null): Locale {
  const asked = (req.query as Record<string, unknown> | undefined)?.lang
  reply.header('Vary', 'Accept-Language, Cookie')
  if (isLocale(asked)) {
    // Remembered for the redirects and pages that follow (a form post, the relay, the receipt).
    reply.header('Set-Cookie', `${LANG_COOKIE}=${asked}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`)
    return asked
  }
  const remembered = cookie(req, LANG_COOKIE)
  if (isLocale(remembered)) return remembered
  if (isLocale(chosen)) return chosen
  return negotiate(req.headers['accept-language'])
}
