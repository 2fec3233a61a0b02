/** The console's catalogues (web/locale.ts chooses the language); an area's own strings live in a folder of their own. */
import { withErrorSentences, type ErrorKey } from '../../web/errors.js'
import { translators, type Translator } from '../../web/i18n.js'
import type { Locale } from '../../web/locale.js'
import { en, type ConsoleCatalogue, type ConsoleKey as OwnKey } from './en.js'
import { ja } from './ja.js'
import { secondFactorEn } from './second-factor/en.js'
import { secondFactorJa } from './second-factor/ja.js'
import { secondFactorZhCN } from './second-factor/zh-CN.js'
import { secondFactorZhHK } from './second-factor/zh-HK.js'
import { zhCN } from './zh-CN.js'
import { zhHK } from './zh-HK.js'

type SecondFactorKey = keyof typeof secondFactorEn

const CATALOGUES: Record<Locale, Record<OwnKey | SecondFactorKey, string>> = {
  en: { ...en, ...secondFactorEn },
  'zh-CN': { ...zhCN, ...secondFactorZhCN },
  'zh-HK': { ...zhHK, ...secondFactorZhHK },
  ja: { ...ja, ...secondFactorJa },
}

export type ConsoleKey = OwnKey | SecondFactorKey | ErrorKey
export type ConsoleT = Translator<ConsoleKey>
export type { ConsoleCatalogue }

export const consoleTranslator = translators(withErrorSentences(CATALOGUES))
