/**
 * A day's reconciliation as CSV (RFC 4180): one row per item, both sides, amounts in minor units.
 * Written line by line from the items read a page at a time, so a day of 100,000 never sits in
 * memory. A UTF-8 byte order mark first, so spreadsheet programs read Chinese text right; a cell
 * that a spreadsheet would take for a formula is written as text.
 */
import type { ItemRow } from '../../services/reconciliation-reports.js'
import { BOM, csvRow as row } from '../csv.js'

export { cell } from '../csv.js'

export const CSV_COLUMNS = [
  'date', 'provider', 'provider_config_id', 'item_id', 'kind', 'category',
  'till_id', 'till_attempt_id', 'till_amount', 'till_currency', 'till_status', 'till_at',
  'statement_date', 'statement_file', 'statement_line', 'statement_till_ref', 'statement_provider_ref',
  'statement_amount', 'statement_currency', 'statement_status', 'statement_fee', 'statement_at',
  'expected_until', 'acknowledged_at', 'acknowledged_by', 'acknowledgement_note',
] as const

export async function* csvLines(report: { date: string; provider: string; providerConfigId: string }, items: AsyncIterable<ItemRow>): AsyncGenerator<string> {
  yield `${BOM}${row([...CSV_COLUMNS])}`
  for await (const i of items) {
    const t = (i.till ?? {}) as Record<string, unknown>
    const l = (i.line ?? {}) as Record<string, unknown>
    yield row([
      report.date, report.provider, report.providerConfigId, i.id, i.kind, i.category,
      t.id, t.ref, t.amount, t.currency, t.status, t.at,
      l.day, l.file, l.line, l.tillRef, l.providerRef, l.amount, l.currency, l.status, l.fee, l.at,
      i.expectedUntil?.toISOString(), i.acknowledgedAt?.toISOString(), i.acknowledgedBy, i.acknowledgementNote,
    ])
  }
}
