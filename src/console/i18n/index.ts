/** The console's catalogues, in the hosted pages' languages (pages/i18n chooses the language). */
import type { Locale } from '../../pages/i18n/index.js'
import { en, type ConsoleCatalogue, type ConsoleKey } from './en.js'
import { zhCN } from './zh-CN.js'

const CATALOGUES: Record<Locale, ConsoleCatalogue> = { en, 'zh-CN': zhCN }

export type ConsoleT = (key: ConsoleKey, vars?: Record<string, string>) => string

export function consoleTranslator(locale: Locale): ConsoleT {
  const c = CATALOGUES[locale]
  return (key, vars = {}) => c[key].replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole)
}

export type { ConsoleKey }
