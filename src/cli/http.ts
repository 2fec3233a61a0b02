/**
 * How `till` reaches a running Till: the address and credentials (flags over environment), and
 * every call turned into either its answer or a CliError that shows the server's own `error` text
 * and HTTP status. Merchant calls go through the @till-payments/node client, admin calls through its
 * request sender with the admin token. Under the `till-source` condition (tsc, the tests' tsx) the
 * package resolves to its TypeScript source; scripts/build.mjs compiles that source into
 * dist/node-client/ and points these imports there.
 */
import { Till, TillConnectionError, TillError } from '@till-payments/node'
import { RequestSender, type HttpMethod } from '@till-payments/node/request'
import { secretSetting } from '../config.js'
import { CliError, optionalString, usageError, type Values } from './args.js'

export const DEFAULT_URL = 'http://localhost:8080'
const TIMEOUT_MS = 30_000

let warnedUrl = false

/** TILL_URL, or --till-url (--url, its deprecated name): an http(s) address without a trailing slash. */
export function tillUrl(values: Values): string {
  const old = optionalString(values, 'url')
  if (old !== undefined && optionalString(values, 'till-url') !== undefined) throw usageError('give --till-url only (--url is its deprecated name)')
  if (old !== undefined && !warnedUrl) {
    warnedUrl = true
    process.stderr.write('till: --url is deprecated: use --till-url (Till\'s address)\n')
  }
  const flag = optionalString(values, 'till-url') ?? old
  const raw = flag ?? (process.env.TILL_URL || DEFAULT_URL)
  let url: URL | null = null
  try {
    url = new URL(raw)
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const name = flag === undefined ? 'TILL_URL' : old === undefined ? '--till-url' : '--url'
    throw usageError(`${name} must be an http(s) address such as ${DEFAULT_URL}, not ${JSON.stringify(raw)}`)
  }
  return raw.replace(/\/+$/, '')
}

function adminToken(values: Values): string {
  let token = optionalString(values, 'admin-token')
  try {
    token ??= secretSetting(process.env, 'ADMIN_TOKEN') ?? undefined
  } catch (e) {
    throw usageError((e as Error).message)
  }
  if (!token) throw usageError('no admin token: set ADMIN_TOKEN (or ADMIN_TOKEN_FILE) to the value Till was started with, or pass --admin-token')
  return token
}

/** TILL_API_KEY or --api-key; never echoed back, even when malformed. */
export function apiKey(values: Values): string {
  const key = optionalString(values, 'api-key') ?? process.env.TILL_API_KEY
  if (!key) throw usageError('no API key: set TILL_API_KEY to the merchant\'s secret key (sk_test_… or sk_live_…), or pass --api-key')
  if (!/^sk_(test|live)_/.test(key)) throw usageError('the API key must be a secret key starting with sk_test_ or sk_live_')
  return key
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

// No retries: an operator at a terminal wants the failure at once and can run the command again.
const NO_RETRIES = { timeoutMs: TIMEOUT_MS, maxRetries: 0, retryBaseMs: 0, retryMaxMs: 0, maxRetryAfterMs: 0 }

export interface AdminApi {
  url: string
  request<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>
}

/** The admin API, /admin/v1, authenticated with ADMIN_TOKEN. */
export function adminApi(values: Values): AdminApi {
  const url = tillUrl(values)
  // TILL_OPERATOR names the person in the merchants' activity logs (docs/operate.md#admin-api).
  const operator = process.env.TILL_OPERATOR?.trim()
  const send: typeof fetch = operator ? (input, init) => globalThis.fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'till-operator': operator } }) : globalThis.fetch
  const sender = new RequestSender({ ...NO_RETRIES, apiKey: adminToken(values), baseUrl: url, fetch: send, sleep })
  return {
    url,
    request: (method, path, body) => call(url, 'admin', () => sender.request(method, `/admin/v1${path}`, { body })),
  }
}

export interface MerchantApi {
  url: string
  mode: 'test' | 'live'
  call<T>(fn: (till: Till) => Promise<T>): Promise<T>
}

/** The merchant API, /api/v1, as the key's merchant and mode. */
export function merchantApi(values: Values): MerchantApi {
  const url = tillUrl(values)
  const key = apiKey(values)
  const till = new Till({ ...NO_RETRIES, apiKey: key, baseUrl: url })
  return { url, mode: key.startsWith('sk_live_') ? 'live' : 'test', call: (fn) => call(url, 'api', () => fn(till)) }
}

async function call<T>(url: string, scope: 'admin' | 'api', fn: () => Promise<T>): Promise<T> {
  let result: T
  try {
    result = await fn()
  } catch (e) {
    throw explain(e, url, scope)
  }
  // Something else answering on that address (a web server's HTML page) is not Till.
  if (result === null || typeof result !== 'object') throw new CliError(`unexpected answer from ${url}: is TILL_URL the address of a Till?`)
  return result
}

export function explain(e: unknown, url: string, scope: 'admin' | 'api'): CliError {
  if (e instanceof TillConnectionError) {
    if (e.timedOut) return new CliError(`Till at ${url} did not answer within ${TIMEOUT_MS / 1000} s`)
    return new CliError(`cannot reach Till at ${url}: is it running? (set TILL_URL)`)
  }
  if (!(e instanceof TillError)) return e instanceof CliError ? e : new CliError(String((e as Error)?.message ?? e))
  const body = e.body as { error?: unknown } | null
  if (!body || typeof body !== 'object' || typeof body.error !== 'string') {
    return new CliError(`unexpected answer from ${url} (HTTP ${e.status}): is TILL_URL the address of a Till?`)
  }
  const request = e.status >= 500 && e.requestId ? `, request ${e.requestId}` : ''
  const message = `${body.error} (HTTP ${e.status}${request})`
  if (scope === 'admin' && e.status === 401) {
    return new CliError(message, 1, 'ADMIN_TOKEN (or --admin-token) must be the ADMIN_TOKEN Till was started with')
  }
  if (scope === 'admin' && e.status === 404) {
    return new CliError(message, 1, 'check the ids; a Till started without ADMIN_TOKEN has no admin API at all')
  }
  return new CliError(message)
}
