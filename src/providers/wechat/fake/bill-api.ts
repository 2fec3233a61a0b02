/**
 * The fake's statement routes (docs/providers.md#statements). Mainland: apply for a bill (signed
 * JSON with its SHA1 and a download_url), then download it with a signed request; the download's
 * answer carries no WeChat signature, as WeChat's does not. WeChat Pay Global: one call answers the
 * file itself, its SHA1 in Wechatpay-Statement-Sha1 and the signature over that SHA1.
 */
import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { withForcedError } from '../../fake-kit/forced-errors.js'
import type { Ctx, Out } from './api.js'
import { billLines, damaged, fundFlowBill, globalStatement, tradeBill, type BillLine } from './bills.js'
import { authenticate, param, readBody, WxError } from './checks.js'
import { randomAlnum } from './crypto.js'
import type { FakeMerchant, FakeStore } from './store.js'
import { signedAnswerHeaders } from './views.js'

/** A download_url is valid for 5 minutes. */
const DOWNLOAD_VALID_MS = 5 * 60_000

const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex')
const notCreated = () => new WxError(400, 'STATEMENT_CREATING', '账单生成中')
const noStatement = (message = '请求的账单文件不存在') => new WxError(400, 'NO_STATEMENT_EXIST', message)

/** The day's lines, or the answer WeChat gives when there is no file to give. */
function linesOrRefuse(store: FakeStore, m: FakeMerchant, day: string): BillLine[] {
  const bill = billLines(store, m.mchId, day)
  if (!bill.published) throw notCreated()
  if (bill.lines.length === 0) throw noStatement()
  return bill.lines
}

type Handle = (route: string, allowed: readonly string[] | null, fn: (c: Ctx) => Out | Promise<Out>) => (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>

/** The two "apply" calls, in the signed API's context (api.ts). */
export function registerBillApply(app: FastifyInstance, store: FakeStore, handle: Handle, baseUrl: () => string) {
  const apply = (kind: 'trade' | 'fundflow') => (c: Ctx): Out => {
    if (c.merchant.service === 'cross_border') throw new WxError(400, 'INVALID_REQUEST', '暂不支持境外支付')
    const q = c.req.query as Record<string, string | undefined>
    if (!q.bill_date || !/^\d{4}-\d{2}-\d{2}$/.test(q.bill_date)) throw param('bill_date格式应为yyyy-MM-dd')
    if (kind === 'trade' && (q.bill_type ?? 'ALL') !== 'ALL') throw param('the fake serves bill_type ALL only')
    if (kind === 'fundflow' && (q.account_type ?? 'BASIC') !== 'BASIC') throw param('the fake serves account_type BASIC only')
    if (q.tar_type !== undefined && q.tar_type !== 'GZIP') throw param('tar_type仅支持GZIP')
    const lines = linesOrRefuse(store, c.merchant, q.bill_date)
    const body = Buffer.from(kind === 'trade' ? tradeBill(lines) : fundFlowBill(lines), 'utf8')
    const token = randomAlnum(48)
    store.billDownloads.set(token, { mchId: c.merchant.mchId, day: q.bill_date, body, gzip: q.tar_type === 'GZIP', expiresAtMs: store.nowMs() + DOWNLOAD_VALID_MS })
    return { status: 200, body: { hash_type: 'SHA1', hash_value: sha1(body), download_url: `${baseUrl()}/v3/billdownload/file?token=${token}` } }
  }
  app.get('/v3/bill/tradebill', handle('tradebill', null, apply('trade')))
  app.get('/v3/bill/fundflowbill', handle('fundflowbill', null, apply('fundflow')))
}

/** The routes whose answers are not signed over their body, in a context of their own (index.ts). */
export function registerBillFiles(app: FastifyInstance, store: FakeStore) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

  const serve = (route: string, fn: (m: FakeMerchant, req: FastifyRequest, reply: FastifyReply) => Promise<Buffer>) => async (req: FastifyRequest, reply: FastifyReply) => {
    let status = 200
    try {
      const raw = { method: req.method, target: req.raw.url ?? req.url, headers: req.headers, body: (req.body as Buffer | undefined) ?? Buffer.alloc(0) }
      const merchant = authenticate(store, raw)
      readBody(store, raw, null)
      const out = await withForcedError(store.knobs.errors, route, (e) => new WxError(e.status, e.code, e.message), () => fn(merchant, req, reply))
      return reply.send(out)
    } catch (e) {
      if (!(e instanceof WxError)) throw e
      status = e.status
      return reply.code(e.status).type('application/json').send(JSON.stringify({ code: e.code, message: e.message }))
    } finally {
      store.requests.push({ method: req.method, path: req.raw.url ?? req.url, status, atMs: store.clock().getTime() })
    }
  }

  app.get('/v3/billdownload/file', serve('billdownload', async (m, req, reply) => {
    const token = (req.query as Record<string, string | undefined>).token ?? ''
    const d = store.billDownloads.get(token)
    if (!d || store.nowMs() > d.expiresAtMs) throw new WxError(400, 'INVALID_REQUEST', '下载链接已失效，请重新申请')
    if (d.mchId !== m.mchId) throw new WxError(403, 'NO_AUTH', '无权下载该账单')
    const body = store.statementKnobs.takeCorrupt(d.day) ? damaged(d.body) : d.body
    reply.type(d.gzip ? 'application/octet-stream' : 'text/plain; charset=utf-8')
    return d.gzip ? gzipSync(body) : body
  }))

  app.get('/v3/global/statements', serve('statements', async (m, req, reply) => {
    if (m.service !== 'cross_border') throw new WxError(403, 'NO_AUTH', '商户号未开通跨境支付权限')
    const q = req.query as Record<string, string | undefined>
    if (q.mchid !== m.mchId) throw param('mchid与请求商户号不一致')
    if (!q.date || !/^\d{8}$/.test(q.date)) throw param('date格式应为yyyyMMdd')
    const day = `${q.date.slice(0, 4)}-${q.date.slice(4, 6)}-${q.date.slice(6)}`
    const bill = billLines(store, m.mchId, day)
    if (!bill.published) throw notCreated()
    if (bill.lines.length === 0) throw noStatement('账单不存在')
    const body = Buffer.from(globalStatement(bill.lines), 'utf8')
    const hash = sha1(body)
    // The statement's signature covers its SHA1, not the (possibly compressed) bytes.
    reply.headers({ 'Content-Type': 'text/plain; charset=utf-8', 'Wechatpay-Statement-Sha1': hash, ...signedAnswerHeaders(store, req.headers['wechatpay-serial'] as string | undefined, hash) })
    const sent = store.statementKnobs.takeCorrupt(day) ? damaged(body) : body
    if (!/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return sent
    reply.header('Content-Encoding', 'gzip')
    return gzipSync(sent)
  }))
}
