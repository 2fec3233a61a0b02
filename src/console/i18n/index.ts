/** The console's catalogues (web/locale.ts chooses the language). */
import { withErrorSentences, type ErrorKey } from '../../web/errors.js'
import { translators, type Translator } from '../../web/i18n.js'
import type { Locale } from '../../web/locale.js'
import { en, type ConsoleCatalogue, type ConsoleKey as OwnKey } from './en.js'
import { ja } from './ja.js'
import { zhCN } from './zh-CN.js'
import { zhHK } from './zh-HK.js'

const CATALOGUES: Record<Locale, ConsoleCatalogue> = { en, 'zh-CN': zhCN, 'zh-HK': zhHK, ja }

export type ConsoleKey = OwnKey | ErrorKey
export type ConsoleT = Translator<ConsoleKey>

export const consoleTranslator = translators(withErrorSentences(CATALOGUES))
