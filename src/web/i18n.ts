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

// Making a formatter costs about 80 µs, formatting with one about 1: one per language, kept.
const timeFormats = new Map<Locale, Intl.DateTimeFormat>()

/**
 * A moment in the page's language, in UTC (the server does not know the reader's time zone). The
 * zone follows the time, held to it by a no-break space, as the pages' script writes local times.
 */
export function formatTime(d: Date, locale: Locale): string {
  let format = timeFormats.get(locale)
  if (!format) timeFormats.set(locale, (format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC', hourCycle: 'h23' })))
  return `${format.format(d)}\u00a0UTC`
}
