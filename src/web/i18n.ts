/** Looking strings up in a catalogue per language (each side, pages and console, has its own). */
import type { Locale } from './locale.js'

export type Translator<K extends string> = (key: K, vars?: Record<string, string>) => string

/** A lookup in one catalogue; `{name}` placeholders are filled from `vars` (the caller's markup escapes them). */
export function translators<K extends string>(catalogues: Record<Locale, Record<K, string>>): (locale: Locale) => Translator<K> {
  return (locale) => {
    const catalogue = catalogues[locale]
    return (key, vars = {}) => catalogue[key].replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole)
  }
}

// Making a formatter costs about 80 µs, formatting with one about 1: one per language and zone, kept
// (zones come from a cookie: the map is bounded, past it a formatter is made for the one call).
const timeFormats = new Map<string, Intl.DateTimeFormat>()
const MAX_FORMATS = 256

function timeFormat(locale: Locale, zone: string): Intl.DateTimeFormat {
  const key = `${locale} ${zone}`
  let format = timeFormats.get(key)
  if (!format) {
    // The same fields as the pages' script (pages/assets/till.js), so a time reads the same either way.
    format = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short', timeZone: zone })
    if (timeFormats.size < MAX_FORMATS) timeFormats.set(key, format)
  }
  return format
}

// Checking a zone makes a formatter too: the zones seen, each once (bounded like the formats).
const zones = new Map<string, string | null>()

/** An IANA time zone Intl knows (a browser's, sent in a cookie), or null. */
export function timeZone(name: string | undefined): string | null {
  if (!name || !/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return null
  let zone = zones.get(name)
  if (zone === undefined) {
    try {
      zone = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone
    } catch {
      zone = null
    }
    if (zones.size < MAX_FORMATS) zones.set(name, zone)
  }
  return zone
}

/**
 * A moment in the page's language, in `zone` (the reader's, when the browser has told it) or in
 * UTC. The zone's name follows the time, held to it by a no-break space, in every language (Intl
 * puts it between date and time in Chinese, in brackets in Hong Kong's), as the pages' script does.
 */
export function formatTime(d: Date, locale: Locale, zone = 'UTC'): string {
  let name = ''
  const text = timeFormat(locale, zone).formatToParts(d).map((p) => {
    if (p.type !== 'timeZoneName') return p.value
    name = p.value
    return ''
  }).join('').replace(/[[(]\s*[\])]/g, '').replace(/\s+/g, ' ').trim()
  return `${text}\u00a0${name}`
}
