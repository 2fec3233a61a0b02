/**
 * CSV as the console's exports write it (RFC 4180, CRLF lines): a cell is quoted when it holds a
 * quote, comma or line break, and a text cell a spreadsheet would take for a formula (starting with
 * = + - @, a tab or a carriage return; OWASP's CSV injection guidance) is written as text, behind '.
 */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  let s = String(v)
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export const csvRow = (cells: unknown[]) => `${cells.map(cell).join(',')}\r\n`

/** Before the first row: a UTF-8 byte order mark, so spreadsheet programs read Chinese and Japanese text right. */
export const BOM = '\ufeff'
