/**
 * The bill's two steps (docs/providers.md#alipay-alipay): alipay.data.dataservice.bill.downloadurl.query
 * behind the gateway (a signed answer naming a download URL), and the download itself, a plain GET
 * of a URL that lives 30 seconds of the fake's clock, as Alipay's does. Its answer is the zip, unsigned.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { bizContent, business, invalidParameter } from './checks.js'
import { billLines, billZip, damaged } from './bills.js'
import type { FakeApp, FakeStore } from './store.js'
import { success } from './wire.js'

/** bill_download_url: 获取连接后30秒后未下载，链接地址失效 (the Java SDK's response class). */
const DOWNLOAD_VALID_MS = 30_000
export const BILL_PATH = '/downloadBillFile.resource'

export function billDownloadUrl(store: FakeStore, baseUrl: () => string) {
  return async (app: FakeApp, params: Record<string, string>) => {
    const biz = bizContent(params)
    if (biz.bill_type !== 'trade') throw invalidParameter('the fake serves bill_type trade only')
    const day = typeof biz.bill_date === 'string' ? biz.bill_date : ''
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) throw invalidParameter('bill_date is yyyy-MM-dd (a daily bill)')
    const bill = billLines(store, app, day)
    if (!bill.published) throw business('isp.bill_not_exist', '账单不存在')
    const token = randomBytes(16).toString('hex')
    const compact = day.replace(/-/g, '')
    store.billDownloads.set(token, { day, body: await billZip(bill.lines, app.sellerId, day, store.nowMs()), expiresAtMs: store.nowMs() + DOWNLOAD_VALID_MS })
    const url = `${baseUrl()}${BILL_PATH}?bizType=trade&userId=${app.sellerId}0156&fileType=csv.zip&bizDates=${compact}&downloadFileName=${app.sellerId}0156_${compact}.csv.zip&token=${token}`
    return success({ bill_download_url: url, ...(bill.lines.length === 0 ? { bill_file_code: 'EMPTY_DATA_WITH_BILL_FILE' } : {}) })
  }
}

/** The download: the zip while the link lives (damaged when the corrupt knob says so), a refusal after. */
export function registerBillDownload(app: FastifyInstance, store: FakeStore) {
  app.get(BILL_PATH, async (req, reply) => {
    const token = (req.query as Record<string, string | undefined>).token ?? ''
    const d = store.billDownloads.get(token)
    store.requests.push({ httpMethod: 'GET', path: BILL_PATH, params: { ...(req.query as Record<string, string>) }, verified: null, answer: { code: d && store.nowMs() <= d.expiresAtMs ? '200' : '403' }, atMs: store.clock().getTime() })
    // What Alipay's file server answers for a dead link is not documented; the fake refuses it plainly.
    if (!d || store.nowMs() > d.expiresAtMs) return reply.code(403).type('text/plain; charset=utf-8').send('链接已失效')
    const body = store.statementKnobs.takeCorrupt(d.day) ? damaged(d.body) : d.body
    return reply.type('application/zip').header('content-disposition', `attachment; filename="${d.day.replace(/-/g, '')}.csv.zip"`).send(body)
  })
}
