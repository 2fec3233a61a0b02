/**
 * A bound on how deeply a JSON body nests, checked on the raw text before anything parses or walks
 * it: the idempotency fingerprint, validation and PostgreSQL all recurse, and a 10 KB body of
 * `[[[[…]]]]` must be a 400, not a stack overflow.
 */
export const MAX_JSON_DEPTH = 32

/** True when brackets outside strings nest deeper than `max` (the text need not be valid JSON). */
export function jsonTooDeep(text: string | Buffer, max = MAX_JSON_DEPTH): boolean {
  const s = typeof text === 'string' ? text : text.toString('latin1')
  let depth = 0
  let inString = false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
