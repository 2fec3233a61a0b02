/** What a caller sent a fake, as its request log keeps it for tests: the JSON body, the raw text if it is not JSON, or nothing. */
export function loggedBody(raw: unknown): unknown {
  if (!Buffer.isBuffer(raw) || raw.length === 0) return undefined
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch {
    return raw.toString('utf8')
  }
}
