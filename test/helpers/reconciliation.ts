/**
 * Reconciliation tests: a live WeChat Pay configuration whose adapter is given a stub statement
 * source (until the providers' own fetchers and fakes serve statements, and beside them after), live
 * payments and refunds seeded in the database as the provider's notifications would have left them,
 * and statements built from them with the differences a test injects.
 */
import { randomBytes } from 'node:crypto'
import type { TestContext } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import type { ProviderRegistry } from '../../src/providers/registry.js'
import { StatementNotReady, type StatementFetch, type StatementFile, type StatementItem, type StatementLine, type StatementSource, type StatementTotal } from '../../src/providers/statements.js'
import type { ProviderConfig } from '../../src/providers/types.js'
import type { Deps } from '../../src/services/deps.js'
import { gathered, oneChunk, textLines } from '../../src/providers/statement-stream.js'
import { startTestApp, type TestApp, type TestAppOptions } from './app.js'
import { wechatCredentials } from './credentials.js'

/**
 * Gives `provider`'s adapter the statement source (the rest of the adapter as it is), in this app's
 * deps only: what a provider module with `statements` looks like to the core.
 */
export function attachStatements(deps: Deps, provider: string, source: StatementSource) {
  const registry: ProviderRegistry = deps.providers
  const adapter = registry.get(provider)
  if (!adapter) throw new Error(`no adapter for ${provider}`)
  const withStatements = Object.assign(Object.create(adapter), { statements: source })
  deps.providers = { get: (id) => (id === provider ? withStatements : registry.get(id)) }
}

export interface StubDay {
  lines: StatementLine[]
  /** The statement's own summary: by default the sums of its lines per currency. */
  totals?: StatementTotal[]
}

/**
 * A provider's statements as a test sets them, day by day. A day not set is not published yet; a
 * day set `notReady` answers like a download whose hash did not match. The files hold a line of
 * JSON per statement line, so a re-run parses the kept files again and never needs the stub.
 */
export function stubStatements(zone = 'Asia/Shanghai') {
  const days = new Map<string, StubDay | { notReady: string; retryAfterS?: number } | { throws: Error } | { badFile: true }>()
  const fetches: string[] = []
  const source: StatementSource = {
    zone,
    async fetch(_cfg, day): Promise<StatementFetch> {
      fetches.push(day)
      const d = days.get(day)
      if (!d) return { ready: false, reason: 'statement not published yet' }
      if ('notReady' in d) return { ready: false, reason: d.notReady, retryAfterS: d.retryAfterS }
      if ('throws' in d) throw d.throws
      if ('badFile' in d) return { ready: true, files: [{ name: 'tradebill', type: 'application/json', body: oneChunk(Buffer.from('not a statement')) }] }
      const items: StatementItem[] = [...d.lines, ...(d.totals ?? sumsOf(d.lines))]
      return { ready: true, files: [{ name: 'tradebill', type: 'application/x-ndjson', body: ndjson(items) }] }
    },
    // Read a line at a time while the core writes lines, as a real parser streams a large file.
    async *parse(files): AsyncIterable<StatementItem> {
      for (const f of files) {
        for await (const { text } of textLines(f.body)) {
          const item = JSON.parse(text) as StatementItem
          yield item.kind === 'total' ? item : { ...item, at: new Date(item.at) }
        }
      }
    },
  }
  return {
    source,
    fetches,
    set: (day: string, d: StubDay) => void days.set(day, d),
    notReady: (day: string, reason: string, retryAfterS?: number) => void days.set(day, { notReady: reason, retryAfterS }),
    throws: (day: string, e: Error) => void days.set(day, { throws: e }),
    badFile: (day: string) => void days.set(day, { badFile: true }),
  }
}

export type WholeFetch = { ready: true; files: (StatementFile & { bytes: Buffer })[] } | { ready: false; reason: string; retryAfterS?: number }

/**
 * A source's fetch read as the core reads it: each file's body read through before the next file is
 * asked for, kept in memory here (`bytes`, and `body` to parse again); a download found not whole
 * (StatementNotReady) answers like a statement not ready.
 */
export async function fetchWhole(source: StatementSource, cfg: ProviderConfig, day: string): Promise<WholeFetch> {
  const f = await source.fetch(cfg, day)
  if (!f.ready) return f
  const files: (StatementFile & { bytes: Buffer })[] = []
  try {
    for await (const file of f.files) {
      const bytes = await gathered(file.body)
      files.push({ name: file.name, type: file.type, bytes, body: oneChunk(bytes) })
    }
  } catch (e) {
    if (e instanceof StatementNotReady) return { ready: false, reason: e.reason, retryAfterS: e.retryAfterS }
    throw e
  }
  return { ready: true, files }
}

/** Items as a file of a JSON line each, handed over a line at a time as a download arrives in pieces. */
export async function* ndjson(items: StatementItem[]): AsyncGenerator<Buffer> {
  for (const i of items) yield Buffer.from(`${JSON.stringify(i)}\n`)
}

/** A statement's summary that agrees with its lines. */
export function sumsOf(lines: StatementLine[]): StatementTotal[] {
  const by = new Map<string, StatementTotal>()
  for (const l of lines) {
    const t = by.get(l.currency) ?? { kind: 'total' as const, currency: l.currency, payments: { count: 0, amount: 0 }, refunds: { count: 0, amount: 0 }, fees: 0 }
    const s = l.kind === 'payment' ? t.payments : t.refunds
    s.count++
    s.amount += l.amount
    t.fees += l.fee ?? 0
    by.set(l.currency, t)
  }
  return [...by.values()]
}

export interface SeededPayment {
  sessionId: string
  attemptId: string
  recordId: string
  amount: number
  currency: string
  paidAt: Date
}

export interface SeededRefund {
  refundId: string
  recordId: string
  amount: number
  currency: string
  status: 'pending' | 'succeeded' | 'failed'
  createdAt: Date
  providerRef: string | null
}

/** Till at a fixed time with a live WeChat Pay configuration made then, its adapter given the stub's statements. */
export async function reconTill(t: TestContext, o: { at?: string; zone?: string; app?: TestAppOptions } = {}) {
  const ta = await startTestApp(t, {}, o.app)
  ta.clock.set(new Date(o.at ?? '2026-05-19T16:00:00.000Z'))
  const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  if (res.status !== 201) throw new Error(`configuration not created: ${res.status} ${JSON.stringify(res.body)}`)
  const configId = res.body.id as string
  const stub = stubStatements(o.zone)
  attachStatements(ta.deps, 'wechat', stub.source)
  const q = (text: string, values: unknown[]) => ta.database.pool.query(text, values)

  /** A live payment captured through the configuration, as a notification would have recorded it. */
  async function payment(p: { amount?: number; currency?: string; paidAt: string | Date; merchantId?: string; configId?: string; attemptStatus?: string; record?: boolean }): Promise<SeededPayment> {
    const amount = p.amount ?? 9900
    const currency = p.currency ?? 'CNY'
    const paidAt = new Date(p.paidAt)
    const merchantId = p.merchantId ?? ta.merchant.id
    const cfg = p.configId ?? configId
    const sessionId = newId('sess')
    const attemptId = newId('att')
    const recordId = newId('rec')
    const paid = p.record !== false
    await q(`insert into sessions (id, merchant_id, mode, status, amount, currency, chosen_provider, provider_config_id, expires_at, created_at, updated_at)
             values ($1, $2, 'live', $3, $4, $5, 'wechat', $6, $7, $7, $7)`, [sessionId, merchantId, paid ? 'paid' : 'processing', amount, currency, cfg, paidAt])
    await q(`insert into attempts (id, session_id, merchant_id, mode, provider, provider_config_id, channel, status, provider_ref, created_at, updated_at)
             values ($1, $2, $3, 'live', 'wechat', $4, 'native', $5, $6, $7, $7)`, [attemptId, sessionId, merchantId, cfg, p.attemptStatus ?? (paid ? 'succeeded' : 'processing'), `wx${randomBytes(8).toString('hex')}`, paidAt])
    if (paid) {
      await q(`insert into records (id, session_id, attempt_id, merchant_id, mode, provider, provider_config_id, provider_ref, amount, currency, status, paid_at, created_at)
               values ($1, $2, $3, $4, 'live', 'wechat', $5, $6, $7, $8, 'paid', $9, $9)`, [recordId, sessionId, attemptId, merchantId, cfg, `wx${randomBytes(8).toString('hex')}`, amount, currency, paidAt])
    }
    return { sessionId, attemptId, recordId, amount, currency, paidAt }
  }

  /** A refund of a seeded payment, in the state a test gives it. */
  async function refund(of: SeededPayment, r: { amount?: number; status?: SeededRefund['status']; at: string | Date; providerRef?: string; initiatedBy?: 'merchant' | 'provider' }): Promise<SeededRefund> {
    const refundId = newId('ref')
    const amount = r.amount ?? of.amount
    const status = r.status ?? 'succeeded'
    const createdAt = new Date(r.at)
    const providerRef = r.providerRef ?? `wxr${randomBytes(8).toString('hex')}`
    await q(`insert into refunds (id, record_id, merchant_id, mode, amount, status, provider_ref, initiated_by, created_at, updated_at)
             values ($1, $2, (select merchant_id from records where id = $2), 'live', $3, $4, $5, $6, $7, $7)`, [refundId, of.recordId, amount, status, providerRef, r.initiatedBy ?? 'merchant', createdAt])
    return { refundId, recordId: of.recordId, amount, currency: of.currency, status, createdAt, providerRef }
  }

  return { ta, configId, stub, payment, refund, q }
}

export type ReconTill = Awaited<ReturnType<typeof reconTill>>

/** The day reconTill's clock starts (Beijing time); 10:30 the next morning its statement is published. */
export const RECON_DAY = '2026-05-20'
export const RECON_NEXT_MORNING = new Date('2026-05-21T02:30:00.000Z')
export const reconAt = (hhmm: string) => new Date(`${RECON_DAY}T${hhmm}:00.000+08:00`)

/** A run by hand through the admin API: of the configuration's day, or of every configuration's when none is named. */
export const runReconciliation = (r: ReconTill, date = RECON_DAY, providerConfigId: string | undefined = r.configId) =>
  r.ta.admin('POST', '/reconciliation/runs', { date, ...(providerConfigId ? { providerConfigId } : {}) })

let lineNo = 0
const PRODUCT = 'Blue mug <b>&amp;</b>'

/** The statement's line of a seeded payment (or refund), as the provider would state it; `over` injects a difference. */
export function lineOf(x: SeededPayment | SeededRefund, over: Partial<StatementLine> = {}): StatementLine {
  const payment = 'attemptId' in x
  const line = ++lineNo
  return {
    kind: payment ? 'payment' : 'refund',
    tillRef: payment ? x.attemptId : x.refundId,
    providerRef: payment ? `42000${line}` : x.providerRef,
    paymentTillRef: null,
    amount: x.amount,
    currency: x.currency,
    status: payment ? 'succeeded' : x.status === 'failed' ? 'failed' : 'succeeded',
    fee: payment ? Math.round(x.amount * 0.006) : 0,
    at: payment ? x.paidAt : x.createdAt,
    source: { file: 'tradebill', line, fields: { 商户订单号: payment ? x.attemptId : '', 商品名称: PRODUCT } },
    ...over,
  }
}

/** A payment the provider took that Till never heard of. */
export function unknownLine(over: Partial<StatementLine> = {}): StatementLine {
  const line = ++lineNo
  return {
    kind: 'payment', tillRef: newId('att'), providerRef: `42000${line}`, paymentTillRef: null, amount: 5000, currency: 'CNY', status: 'succeeded',
    fee: 30, at: new Date('2026-05-20T05:00:00.000Z'), source: { file: 'tradebill', line, fields: { 商品名称: '<script>alert("x")</script>' } }, ...over,
  }
}

/** Items of a statement by category, from the database. */
export async function itemsOf(ta: TestApp, statementId: string) {
  const { rows } = await ta.database.pool.query('select * from reconciliation_items where statement_id = $1 order by key', [statementId])
  return rows as Record<string, any>[]
}
