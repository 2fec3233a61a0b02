/** What `till` prints: aligned tables for people, JSON for scripts. */

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
