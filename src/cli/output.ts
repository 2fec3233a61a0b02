/** What `till` prints: aligned tables for people, JSON for scripts. */
import { displayAmount, isCurrency } from '../domain/money.js'

export const print = (text: string): void => void process.stdout.write(`${text}\n`)

export const printJson = (value: unknown) => print(JSON.stringify(value, null, 2))

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd()
  return [line(headers), ...rows.map(line)].join('\n')
}

/** An ISO time to the second: `2026-05-01T09:30:00Z`. */
export const time = (iso: string | null | undefined) => (iso ? iso.replace(/\.\d+Z$/, 'Z') : '-')

/** A stored key as it may be shown after creation: its prefix and last four characters only. */
export const maskedKey = (mode: string, last4: string) => `sk_${mode}_…${last4}`

export const yesNo = (b: boolean) => (b ? 'yes' : 'no')

/**
 * An amount as people read it: the currency's major unit and its code, `$123.45 USD`, `¥1,500 JPY`
 * (the pages' displayAmount, with a plain space). The API's minor units stay in --json and in
 * --amount. A currency this CLI does not know (a newer Till) is shown as the API gives it.
 */
export const money = (amount: number, currency: string) =>
  isCurrency(currency) ? displayAmount(amount, currency).replace('\u00a0', ' ') : `${amount} ${currency} (minor units)`
