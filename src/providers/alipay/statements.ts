/**
 * The Alipay adapter's daily statement (docs/providers.md#alipay-alipay): the trade bill of a
 * Beijing day. alipay.data.dataservice.bill.downloadurl.query (signed and verified like every call)
 * names a download URL that lives 30 s; the download is a zip of two GBK CSV files, held whole (a
 * zip's directory is at its end, and the download is capped) and each of the two entries inflated
 * as the core keeps it, under the limits of zip.ts and its CRC-32 checked. bill.ts reads the kept
 * files back as streams. Nothing partial is used.
 */
import { DEFAULT_STATEMENT_LIMITS, inMiB, type StatementLimits } from '../limits.js'
import { StatementNotReady, StatementRefused, type StatementFetch, type StatementSource } from '../statements.js'
import { ProviderError } from '../types.js'
import { billItems, BILL_TYPE, DETAIL_FILE, SUMMARY_FILE } from './bill.js'
import { METHODS } from './constants.js'
import type { AlipayClient } from './http.js'
import type { Answer } from './wire.js'
import { DamagedZip, openZip, quotedNames, type ZipEntry } from './zip.js'

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

const DETAIL_NAME = '业务明细.csv'
const SUMMARY_NAME = '业务明细(汇总).csv'

export function alipayStatements(client: AlipayClient, now: () => Date, limits: StatementLimits = DEFAULT_STATEMENT_LIMITS): StatementSource {
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
      const res = await client.download(answer.bill_download_url, { maxBytes: limits.zipMaxBytes, deadlineMs: limits.downloadMs })
      if (res.status !== 200) return { ready: false, reason: `the bill's download answered HTTP ${res.status}`, retryAfterS: DOWNLOAD_RETRY_S }
      let zip
      try {
        zip = await openZip(res.body, (name) => name.endsWith(DETAIL_NAME) || name.endsWith(SUMMARY_NAME), limits.maxBytes)
      } catch (e) {
        if (e instanceof DamagedZip) return { ready: false, reason: `the bill's zip is damaged (${e.message}); refused`, retryAfterS: DOWNLOAD_RETRY_S }
        throw e
      }
      const detail = zip.entries.find((x) => x.name.endsWith(DETAIL_NAME))
      const summary = zip.entries.find((x) => x.name.endsWith(SUMMARY_NAME))
      if (!detail || !summary) throw new StatementRefused(`Alipay's bill zip holds ${quotedNames(zip.names)}, not the detail and summary files`)
      if (detail.size + summary.size > limits.maxBytes) throw new StatementRefused(`the bill's zip unpacks to ${inMiB(detail.size + summary.size)}, more than ${inMiB(limits.maxBytes)}; refused`)
      // Each entry inflated as the core reads it, one at a time; a damaged one undoes the fetch.
      const damaged = (e: unknown) => (e instanceof DamagedZip ? new StatementNotReady(`the bill's zip is damaged (${e.message}); refused`, DOWNLOAD_RETRY_S) : e)
      async function* body(entry: ZipEntry) {
        try {
          yield* zip!.read(entry)
        } catch (e) {
          throw damaged(e)
        }
      }
      return { ready: true, files: [{ name: DETAIL_FILE, body: body(detail), type: BILL_TYPE }, { name: SUMMARY_FILE, body: body(summary), type: BILL_TYPE }] }
    },

    parse: (files) => billItems(files),
  }
}
