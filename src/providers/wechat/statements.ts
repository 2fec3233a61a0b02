/**
 * The WeChat adapter's daily statement (docs/providers.md#statements): fetched with the signed
 * client (http.ts), read by bill.ts. Each file is handed over as its download arrives (gunzipped on
 * the way) and its SHA1 checked at its end; one that does not match throws StatementNotReady, and
 * the core keeps nothing of the day's fetch (statements.ts).
 *
 * Mainland: GET /v3/bill/tradebill (ALL) and /v3/bill/fundflowbill (BASIC) answer a signed
 * `{hash_type, hash_value, download_url}`; the download is a signed GET whose answer WeChat does not
 * sign; the SHA1 is of the uncompressed file. WeChat Pay Global: GET /v3/global/statements answers
 * the file itself, its SHA1 in Wechatpay-Statement-Sha1, the signature over that SHA1.
 */
import { tooLarge } from '../exchange.js'
import { ANSWER_MAX_BYTES, DEFAULT_STATEMENT_LIMITS, type StatementLimits } from '../limits.js'
import { gathered, gunzipped, hashChecked, oneChunk } from '../statement-stream.js'
import { StatementNotReady, type StatementFetch, type StatementFile, type StatementItem, type StatementSource } from '../statements.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { checkFundFlowBill, tradeBillItems } from './bill.js'
import { apiBaseOf, credentialsOf, isCrossBorder, type WechatClient } from './http.js'
import { errorFrom, type ErrorBody } from './wire.js'


const DAY_MS = 24 * 3600_000
/** WeChat makes day D's statement from 09:00 Beijing on D+1 and tells merchants to ask after 10:00. */
export const PUBLISHED_AFTER_MS = 10 * 3600_000
/** Its FAQ: while it answers STATEMENT_CREATING, ask again every half hour. */
const CREATING_RETRY_S = 1800
/** A download that failed its hash is asked for again soon: the file itself is fine at WeChat. */
const DAMAGED_RETRY_S = 60

export const TRADEBILL_PATH = '/v3/bill/tradebill'
export const FUNDFLOWBILL_PATH = '/v3/bill/fundflowbill'
export const GLOBAL_STATEMENTS_PATH = '/v3/global/statements'
const CSV = 'text/csv; charset=utf-8'

export interface WechatStatementOptions {
  now: () => Date
  /** Ask for gzip (smaller downloads; the default) or plain files. */
  gzip?: boolean
  limits?: StatementLimits
}

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name]
  return Array.isArray(v) ? v[0] : v
}

export function wechatStatements(client: WechatClient, o: WechatStatementOptions): StatementSource {
  const gzip = o.gzip ?? true
  const limits = o.limits ?? DEFAULT_STATEMENT_LIMITS
  const bounds = { maxBytes: limits.maxBytes, deadlineMs: limits.downloadMs }

  /** WeChat's answers that mean "no file": creating (ask later) or none (the day had no business). */
  function noFile(e: unknown, name: string): StatementFile {
    if (e instanceof ProviderError && e.code === 'STATEMENT_CREATING') throw new StatementNotReady(`${name}: WeChat Pay is still creating it`, CREATING_RETRY_S)
    if (e instanceof ProviderError && e.code === 'NO_STATEMENT_EXIST') return { name, body: oneChunk(Buffer.alloc(0)), type: CSV }
    throw e
  }

  /** The downloaded bytes, gunzipped when compressed, their SHA1 checked at the end: refused then, nothing kept. */
  function checked(body: AsyncIterable<Buffer>, compressed: boolean, expected: string, name: string): AsyncIterable<Buffer> {
    const plain = compressed ? gunzipped(body, `${name}: the download is not a whole gzip file`, { retryAfterS: DAMAGED_RETRY_S, maxBytes: limits.maxBytes }) : body
    return hashChecked(plain, 'sha1', expected, () => new StatementNotReady(`${name}: the download does not match WeChat Pay's SHA1; refused`, DAMAGED_RETRY_S))
  }

  /** A mainland bill: apply (signed, verified), then a signed GET of the file, its bytes handed over as they arrive. */
  async function bill(cfg: ProviderConfig, name: string, path: string, query: string): Promise<StatementFile> {
    let applied: { hash_type?: string; hash_value?: string; download_url?: string }
    try {
      applied = (await client.call<typeof applied>(cfg, 'GET', `${path}?${query}${gzip ? '&tar_type=GZIP' : ''}`)).data ?? {}
    } catch (e) {
      return noFile(e, name)
    }
    if (applied.hash_type !== 'SHA1' || !applied.hash_value || !applied.download_url) throw new ProviderError('unknown', 'malformed_response', `WeChat Pay answered ${name} without a SHA1 and a download_url`)
    const url = new URL(applied.download_url)
    // Our signed request goes to WeChat's own host only, whatever an answer names.
    if (url.origin !== new URL(apiBaseOf(cfg)).origin) throw new ProviderError('unknown', 'untrusted_download_url', `${name}: download_url is not on ${new URL(apiBaseOf(cfg)).origin}`)
    const res = await client.getFile(cfg, url.pathname + url.search, {}, bounds)
    if (res.status !== 200) throw errorFrom(res.status, parseJson(await errorBody(res.body)))
    return { name, body: checked(res.body, gzip, applied.hash_value, name), type: CSV }
  }

  /** Each bill asked for when the core has read the one before: its download link lives minutes. */
  async function* mainland(cfg: ProviderConfig, first: StatementFile, day: string): AsyncGenerator<StatementFile> {
    yield first
    yield await bill(cfg, 'fundflowbill', FUNDFLOWBILL_PATH, `bill_date=${day}&account_type=BASIC`)
  }

  async function global(cfg: ProviderConfig, day: string): Promise<StatementFile> {
    const name = 'statement'
    const target = `${new URL(apiBaseOf(cfg)).pathname.replace(/\/+$/, '')}${GLOBAL_STATEMENTS_PATH}?date=${day.replaceAll('-', '')}&mchid=${encodeURIComponent(credentialsOf(cfg).mchId)}`
    const res = await client.getFile(cfg, target, gzip ? { 'Accept-Encoding': 'gzip' } : {}, bounds)
    if (res.status !== 200) return noFile(errorFrom(res.status, parseJson(await errorBody(res.body))), name)
    const hash = header(res.headers, 'wechatpay-statement-sha1')
    // The answer's signature covers the SHA1 header: a verified SHA1 makes the bytes WeChat's.
    const check = await client.verify(cfg, res.headers, hash ?? '')
    if (!check.ok) {
      await gathered(res.body)
      throw new ProviderError('unknown', 'invalid_response_signature', `WeChat Pay Global's statement failed verification: ${check.reason}`)
    }
    return { name, body: checked(res.body, /\bgzip\b/.test(header(res.headers, 'content-encoding') ?? ''), hash ?? '', name), type: CSV }
  }

  return {
    zone: 'Asia/Shanghai',

    async fetch(cfg, day): Promise<StatementFetch> {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00+08:00`))) throw new ProviderError('rejected', 'invalid_day', `not a day: ${day}`, false)
      const publishedAt = Date.parse(`${day}T00:00:00+08:00`) + DAY_MS + PUBLISHED_AFTER_MS
      const wait = publishedAt - o.now().getTime()
      // Before then WeChat may answer "no statement" for a day that simply is not made yet.
      if (wait > 0) return { ready: false, reason: `WeChat Pay publishes ${day}'s statement after 10:00 Beijing time the next day`, retryAfterS: Math.ceil(wait / 1000) }
      try {
        if (isCrossBorder(cfg)) return { ready: true, files: [await global(cfg, day)] }
        return { ready: true, files: mainland(cfg, await bill(cfg, 'tradebill', TRADEBILL_PATH, `bill_date=${day}&bill_type=ALL`), day) }
      } catch (e) {
        if (e instanceof StatementNotReady) return { ready: false, reason: e.reason, retryAfterS: e.retryAfterS }
        throw e
      }
    },

    parse: (files) => parseFiles(files),
  }
}

async function* parseFiles(files: StatementFile[]): AsyncGenerator<StatementItem> {
  for (const f of files) {
    if (f.name === 'tradebill') yield* tradeBillItems(f.body, { file: f.name, defaultCurrency: 'CNY' })
    else if (f.name === 'fundflowbill') await checkFundFlowBill(f.body, f.name)
    // WeChat Pay Global's FAQ: a PROCESSING refund on its statement is to be taken as succeeded.
    else if (f.name === 'statement') yield* tradeBillItems(f.body, { file: f.name, processingRefund: 'succeeded' })
    else throw new Error(`not a WeChat Pay statement file: ${f.name}`)
  }
}

/** A refusal's body (JSON of a few hundred bytes), read up to an API answer's cap: a statement download's own cap is far larger. */
const errorBody = (body: AsyncIterable<Buffer>) => gathered(body, ANSWER_MAX_BYTES, () => tooLarge('WeChat Pay', ANSWER_MAX_BYTES))

function parseJson(b: Buffer): ErrorBody | null {
  try {
    return JSON.parse(b.toString('utf8')) as ErrorBody
  } catch {
    return null
  }
}
