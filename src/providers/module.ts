/**
 * What Till knows about one live provider, declared in its own folder (src/providers/<id>/module.ts)
 * and listed once in src/providers/index.ts. The console's forms, the CLI's help, validation,
 * metrics labels, `till fake <id>` and the hosted page's browser step all read it (a test checks the
 * docs' credential tables against it), so nothing outside the provider's folder needs its name
 * (docs/architecture.md#adding-a-provider).
 */
import type { Dispatcher } from 'undici'
import type { Locale } from '../domain/locales.js'
import type { Currency } from '../domain/money.js'
import type { Fields } from './credentials.js'
import type { StatementLimits } from './limits.js'
import type { Action, Capabilities, PaymentProvider, ProductStore, ProviderConfig } from './types.js'

/**
 * A text in the languages the pages and the console speak. English and Simplified Chinese are
 * required; a text without Traditional Chinese or Japanese is shown in English there (`inLocale`).
 */
export interface Localized {
  en: string
  'zh-CN': string
  'zh-HK'?: string
  ja?: string
}

/** A text in one language, English when it has none in that language. */
export const inLocale = (text: Localized, locale: Locale): string => text[locale] ?? text.en

/** One credential (secret or not): a console form field, a line of CLI help, a row of the docs' table. */
export interface CredentialField {
  name: string
  label: Localized
  /** What the CLI's help says about the value, briefly. */
  help: string
  /** A PEM text, which the console also takes as an uploaded file. */
  pem?: boolean
  /** Never shown again once saved (a password field in the console). */
  secret?: boolean
  optional?: boolean
}

/** One setting: not secret, stored as given; a console form field and a line of the CLI's help. */
export interface SettingField {
  name: string
  label: Localized
  help: string
  /** The values it takes (a choice in the console); the first is what an absent setting means. */
  choices?: readonly string[]
}

/** What an adapter may be built with; the service wiring (deps.ts) supplies it. */
export interface AdapterContext {
  now: () => Date
  /** The guarded agent every provider API call dials through. */
  dispatcher: Dispatcher
  /** Products the provider needs, made once and remembered (the provider_products table). */
  products: ProductStore
  /** What a statement may hold and how long its download may take (TILL_STATEMENT_* settings). */
  statementLimits?: StatementLimits
}

/**
 * A round trip the customer's browser makes through the provider before the attempt starts (WeChat's
 * OAuth for a JSAPI payer's openid). The page mounts one generic route for it at
 * {BASE_URL}/c/<path>/<sessionId>: a fixed, provider-declared path, because providers may allow
 * their in-app payment only from a registered directory.
 */
export interface BrowserStep {
  path: string
  /** The channel whose pick goes through the step first. */
  channel: string
  /** The app the step runs inside, as customers call it (in the page's messages). */
  app: Localized
  /** Where to send the customer, or null when the configuration cannot finish the step (a missing secret). */
  startUrl(cfg: ProviderConfig, o: { redirectUri: string; state: string }): string | null
  /** Why a configuration cannot take the step, for the operator's log. */
  missing: string
}

/** What the hosted pages' stylesheet and script take from the provider (src/pages/assets.ts). */
export interface PagePieces {
  /** Its mark's background: a CSS colour. */
  markColor: string
  /**
   * A script for the in-app page that sets `window.TillApps[<id>] = function (params, done)`: it
   * hands the parameters the adapter's `jsapi` action carried to the app's payment bridge and calls
   * `done(ok)`, which goes on to the relay (ok) or back to the checkout.
   */
  script?: URL
}

/** `till fake <id>`: a local stand-in speaking the provider's protocol. */
export interface FakeCommand {
  usage: string
  run(args: string[]): Promise<number>
}

export interface ProviderModule<Id extends string = string> {
  id: Id
  name: Localized
  capabilities: Capabilities
  credentials: readonly CredentialField[]
  settings: readonly SettingField[]
  /** Throws InvalidField/UnknownField naming the bad credential (the admin API's and console's message). */
  validateCredentials(c: Fields): void
  /** allowPrivate: PROVIDER_ALLOW_PRIVATE=1. */
  validateSettings(s: Fields, allowPrivate: boolean): void
  /** What one configuration can list, when it narrows the provider's currencies. */
  currenciesOf?(settings: Fields): readonly Currency[]
  /** Refuses a settings change that would strand the configuration's records. */
  checkSettingsChange?(before: Fields, after: Fields): void
  /** What identifies saved credentials without revealing them (the console's list). */
  identify(credentials: Fields): Localized[]
  /** The channel to use for this browser, where the provider has several (a configuration's settings may choose among them). */
  channelFor?(userAgent: string | undefined, settings: Fields): string | null
  /** How to pay the provider's QR code, in its own words, shown beside it. */
  scanHelp?: Localized
  /** An open attempt's action worth showing again on this channel instead of placing a new order (a still valid QR code). */
  actionShownAgain?(attempt: { channel: string | null; providerData: Record<string, unknown>; createdAt: Date }, channel: string | null, now: Date): Action | null
  browserStep?: BrowserStep
  page: PagePieces
  createAdapter(ctx: AdapterContext): PaymentProvider
  /** Loaded only when run, so the service never loads the fake. */
  fake(): Promise<FakeCommand>
}
