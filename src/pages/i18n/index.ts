/** The customer-facing pages' catalogues (web/locale.ts chooses the language). */
import { withErrorSentences, type ErrorKey } from '../../web/errors.js'
import { translators, type Translator } from '../../web/i18n.js'
import type { Locale } from '../../web/locale.js'
import { en, type Catalogue, type MessageKey } from './en.js'
import { ja } from './ja.js'
import { zhCN } from './zh-CN.js'
import { zhHK } from './zh-HK.js'

const CATALOGUES: Record<Locale, Catalogue> = { en, 'zh-CN': zhCN, 'zh-HK': zhHK, ja }

export type Translate = Translator<MessageKey | ErrorKey>

export const translator = translators(withErrorSentences(CATALOGUES))
