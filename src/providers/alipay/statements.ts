/**
 * The Alipay adapter's daily statement (docs/providers.md#alipay-alipay): the trade bill of a
 * Beijing day. alipay.data.dataservice.bill.downloadurl.query (signed and verified like every call)
 * names a download URL that lives 30 s; the download is a zip of two GBK CSV files, unpacked whole
 * (a zip's directory is at its end) and each entry checked against its CRC-32 (zip.ts). The core
 * keeps the two files and bill.ts reads them back as streams. Nothing partial is used.
 */
import { oneChunk } from '../statement-stream.js'
import type { StatementFetch, StatementSource } from '../statements.js'
import { ProviderError } from '../types.js'
import { billItems, BILL_TYPE, DETAIL_FILE, SUMMARY_FILE } from './bill.js'
import { METHODS } from './constants.js'
import type { AlipayClient } from './http.js'
import type { Answer } from './wire.js'
import { DamagedZip, unzipChecked } from './zip.js'

interface BillUrlAnswer extends Answer {
  bill_download_url?: string
  /** EMPTY_DATA_WITH_BILL_FILE: no business that day, and a file that says so (the Java SDK's response class). */
  bill_file_code?: string
}

const DAY_MS = 24 * 3600_000
/** Alipay makes day D's bill early on D+1, usually by 09:00 Beijing time. */
export const BILL_READY_AFTER_MS = 9 * 3600_000
/** Asked again while Alipay says the bill does not exist yet. */
const NOT_MADE_RETRY_S = 1800
/** A damaged or refused download is asked for again soon, with a fresh URL. */
const DOWNLOAD_RETRY_S = 60

/** The answer Alipay gives for a bill it has not made (yet). */
export const BILL_NOT_EXIST = 'isp.bill_not_exist'

export function alipayStatements(client: AlipayClient, now: () => Date): StatementSource {
  return {
    zone: 'Asia/Shanghai',

    async fetch(cfg, day): Promise<StatementFetch> {
      const start = Date.parse(`${day}T00:00:00+08:00`)
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(start)) throw new ProviderError('rejected', 'invalid_day', `not a day: ${day}`, false)
      let answer: BillUrlAnswer
      try {
        answer = await client.call<BillUrlAnswer>(cfg, METHODS.billDownloadUrl, { bill_type: 'trade', bill_date: day })
      } catch (e) {
        if (!(e instanceof ProviderError) || e.code !== BILL_NOT_EXIST) throw e
        const wait = Math.ceil((start + DAY_MS + BILL_READY_AFTER_MS - now().getTime()) / 1000)
        return { ready: false, reason: `Alipay has not made ${day}'s bill yet`, retryAfterS: Math.max(wait, NOT_MADE_RETRY_S) }
      }
      if (!answer.bill_download_url) throw new ProviderError('unknown', 'malformed_response', 'Alipay answered the bill query without its bill_download_url')
      const res = await client.download(answer.bill_download_url)
      if (res.status !== 200) return { ready: false, reason: `the bill's download answered HTTP ${res.status}`, retryAfterS: DOWNLOAD_RETRY_S }
      let entries
      try {
        entries = await unzipChecked(res.body)
      } catch (e) {
        if (e instanceof DamagedZip) return { ready: false, reason: `the bill's zip is damaged (${e.message}); refused`, retryAfterS: DOWNLOAD_RETRY_S }
        throw e
      }
      const detail = entries.find((x) => x.name.endsWith('业务明细.csv'))
      const summary = entries.find((x) => x.name.endsWith('业务明细(汇总).csv'))
      if (!detail || !summary) throw new ProviderError('unknown', 'malformed_bill', `Alipay's bill zip holds ${entries.map((x) => x.name).join(', ') || 'nothing'}, not the detail and summary files`)
      return { ready: true, files: [{ name: DETAIL_FILE, body: oneChunk(detail.body), type: BILL_TYPE }, { name: SUMMARY_FILE, body: oneChunk(summary.body), type: BILL_TYPE }] }
    },

    parse: (files) => billItems(files),
  }
}
