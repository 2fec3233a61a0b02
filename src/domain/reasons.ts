/**
 * Why a day of reconciliation failed or waits, as the console and the API show it: short, and never
 * what Till did inside (an SQL statement, its parameters); that goes to the server log under an id.
 */

/** The longest reason kept and shown. */
export const MAX_REASON = 500

/** `text` within MAX_REASON characters, cut with an ellipsis (never inside a surrogate pair). */
export function boundedReason(text: string): string {
  if (text.length <= MAX_REASON) return text
  let cut = MAX_REASON - 1
  if (/[\ud800-\udbff]/.test(text[cut - 1])) cut--
  return `${text.slice(0, cut)}…`
}

/** What a person is shown for a failure whose detail is in the server log under `logId`. */
export const internalReason = (logId: string) => `internal error, see log ${logId}`

/**
 * The first character of `text` PostgreSQL cannot store (NUL in text and jsonb; a lone surrogate in
 * jsonb), as U+XXXX, or null when there is none.
 */
export function unstorableCharacter(text: string): string | null {
  const m = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text)
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null
}
