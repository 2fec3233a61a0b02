/**
 * The languages of every page Till serves (hosted pages and console), and the one a request gets:
 * `?lang=` (remembered in a cookie), then the cookie, then Accept-Language.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

export const LOCALES = ['en', 'zh-CN'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'
/** Each language in itself, for the language switch. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' }
export const LANG_COOKIE = 'till_lang'

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

export function cookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export function pageLocale(req: FastifyRequest, reply: FastifyReply): Locale {
  const asked = (req.query as Record<string, unknown> | undefined)?.lang
  reply.header('Vary', 'Accept-Language, Cookie')
  if (isLocale(asked)) {
    // Remembered for the redirects and pages that follow (a form post, the relay, the receipt).
    reply.header('Set-Cookie', `${LANG_COOKIE}=${asked}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`)
    return asked
  }
  const remembered = cookie(req, LANG_COOKIE)
  if (isLocale(remembered)) return remembered
  return negotiate(req.headers['accept-language'])
}
