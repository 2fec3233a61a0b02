/**
 * The fake's own signing, written apart from the adapter's sign.ts on purpose: the known-answer
 * vectors (../vectors.json) pin both, so a mistake they shared could not pass.
 */
import { createHash, createHmac } from 'node:crypto'

/** creem-signature: HMAC-SHA256 keyed with the webhook secret over the exact body bytes, lowercase hex. */
export const signBody = (secret: string, body: string) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex')

/**
 * The success redirect's signature: SHA-256 over `k=v` pairs in the order they are appended,
 * absent values left out, `salt=<API key>` last, joined by `|`.
 */
export function signRedirect(pairs: ReadonlyArray<readonly [string, string | null]>, apiKey: string): string {
  const kept = pairs.filter(([, v]) => v !== null && v !== '').map(([k, v]) => k + '=' + v)
  return createHash('sha256').update([...kept, 'salt=' + apiKey].join('|'), 'utf8').digest('hex')
}
