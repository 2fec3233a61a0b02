/** The console's catalogues (web/locale.ts chooses the language). */
import { translators, type Translator } from '../../web/i18n.js'
import type { Locale } from '../../web/locale.js'
import { en, type ConsoleCatalogue, type ConsoleKey } from './en.js'
import { ja } from './ja.js'
import { zhCN } from './zh-CN.js'
import { zhHK } from './zh-HK.js'

const CATALOGUES: Record<Locale, ConsoleCatalogue> = { en, 'zh-CN': zhCN, 'zh-HK': zhHK, ja }

export type ConsoleT = Translator<ConsoleKey>

export const consoleTranslator = translators(CATALOGUES)

export type { ConsoleKey }
