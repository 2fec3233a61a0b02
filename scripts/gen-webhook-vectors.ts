/**
 * Writes testdata/webhook-signatures.json, the webhook signature vectors shared by the JavaScript,
 * Python and Go clients. The JSON is the contract: tests read it, never this script. Run
 * `npx tsx scripts/gen-webhook-vectors.ts` to reproduce it; the output is deterministic.
 *
 * Signing (docs/integrate.md#webhooks): X-Service-Signature = lowercase hex HMAC-SHA256 of the raw body bytes,
 * keyed with the UTF-8 bytes of the whole endpoint secret (`whsec_…` included). The signing is
 * written here with node:crypto directly, not with any client, so a client bug cannot agree with itself.
 */
import { createHmac } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const OUT = fileURLToPath(new URL('../testdata/webhook-signatures.json', import.meta.url))

const SECRET = 'whsec_4eC39HqLyjWDarjtT1zdp7dcYxvpQ2Wb'
const SECRET_OLD = 'whsec_Zq8m1TnV0c3XkLpR7sJd2yGh5WfB9aUe'
const SECRET_OTHER = 'whsec_9Kd3Lm2Np8Qr4St6Uv1Wx5Yz7Ab0Cd2Ef'
const CREATED = '2026-11-21T09:30:00.000Z'
const CREATED_S = Date.parse(CREATED) / 1000

const sign = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex')

function event(data: Record<string, unknown>, over: Record<string, unknown> = {}) {
  return { id: 'evt_3kT9bQ2mX7vL1pZ8rN4cW6yH', type: 'payment.succeeded', createdAt: CREATED, mode: 'test', data, ...over }
}
const paidData = {
  sessionId: 'sess_8fJ2kL9mN3pQ5rS7tV1wX4yZ',
  status: 'paid',
  amount: 9900,
  currency: 'CNY',
  metadata: { order: 'A-1' },
  recordId: 'rec_2bC4dE6fG8hJ1kL3mN5pQ7rS',
  provider: 'mock',
  providerRef: 'mock_7Hk2Lm9Qp4Rs',
  paidAt: '2026-11-21T09:29:59.512Z',
}
const ascii = Buffer.from(JSON.stringify(event(paidData)))
const nonAscii = Buffer.from(JSON.stringify(event({ ...paidData, amount: 1500, currency: 'JPY', metadata: { order: '订单-一号', note: '谢谢 🧾✨', name: 'Zoë' } })))
const refundBody = Buffer.from(JSON.stringify(event({
  refundId: 'ref_5tY7uI9oP1aS3dF5gH7jK9lZ', recordId: paidData.recordId, sessionId: paidData.sessionId, amount: 1000,
  refundedAmount: 1000, recordStatus: 'partially_refunded', currency: 'CNY', status: 'succeeded', reason: '破损', metadata: {},
}, { id: 'evt_7pR2sT4uV6wX8yZ1aB3cD5eF', type: 'refund.succeeded' })))
// What a receiver that parsed the JSON and serialised it again would hold: same data, other bytes.
const pretty = Buffer.from(JSON.stringify(event(paidData), null, 2))
const reserialised = Buffer.from(JSON.stringify(JSON.parse(pretty.toString('utf8'))))
const tampered = Buffer.from(ascii)
tampered[ascii.indexOf('9900') + 1] = '8'.charCodeAt(0) // 9900 → 9800, one byte
const tamperedCjk = Buffer.from(nonAscii)
tamperedCjk[nonAscii.indexOf('订') + 2] ^= 0x01 // 订 (E8 AE A2) → 讣 (E8 AE A3): still valid UTF-8, one byte

interface Vector {
  name: string
  bodyBase64: string
  secret: string
  header: string
  toleranceSeconds?: number
  now?: number
  valid: boolean
  constructEvent: 'ok' | 'signature' | 'tolerance' | 'payload'
  eventId?: string
}

const v = (name: string, body: Buffer, secret: string, header: string, valid: boolean,
  constructEvent: Vector['constructEvent'], extra: Partial<Vector> = {}): Vector => ({
  name, bodyBase64: body.toString('base64'), secret, header, now: CREATED_S + 2, ...extra, valid, constructEvent,
  ...(constructEvent === 'ok' ? { eventId: JSON.parse(body.toString('utf8')).id } : {}),
})

const s = sign(SECRET, ascii)
const flip = (hex: string) => (hex === '0' ? '1' : '0')
const vectors: Vector[] = [
  v('ascii body, one signature', ascii, SECRET, s, true, 'ok'),
  v('non-ASCII body (Chinese, emoji, Latin-1) signed over its UTF-8 bytes', nonAscii, SECRET, sign(SECRET, nonAscii), true, 'ok'),
  v('refund event with a Chinese reason', refundBody, SECRET, sign(SECRET, refundBody), true, 'ok'),
  v('rotation: new and old signatures, verified with the new secret', ascii, SECRET, `${s},${sign(SECRET_OLD, ascii)}`, true, 'ok'),
  v('rotation: new and old signatures, verified with the old secret', ascii, SECRET_OLD, `${s},${sign(SECRET_OLD, ascii)}`, true, 'ok'),
  v('rotation: spaces around the comma are allowed', ascii, SECRET_OLD, `${s} , ${sign(SECRET_OLD, ascii)}`, true, 'ok'),
  v('rotation: a secret matching neither signature', ascii, SECRET_OTHER, `${s},${sign(SECRET_OLD, ascii)}`, false, 'signature'),
  v('wrong secret', ascii, SECRET_OTHER, s, false, 'signature'),
  v('one tampered byte in the body (9900 became 9800)', tampered, SECRET, s, false, 'signature'),
  v('one byte changed inside a Chinese character', tamperedCjk, SECRET, sign(SECRET, nonAscii), false, 'signature'),
  v('body parsed and re-serialised by a framework: same JSON, other bytes', reserialised, SECRET, sign(SECRET, pretty), false, 'signature'),
  v('the original pretty-printed body verifies', pretty, SECRET, sign(SECRET, pretty), true, 'ok'),
  v('uppercase hex signature is accepted (hex is case-insensitive; Till sends lowercase)', ascii, SECRET, s.toUpperCase(), true, 'ok'),
  v('empty header', ascii, SECRET, '', false, 'signature'),
  v('header with only commas and spaces', ascii, SECRET, ' , ,', false, 'signature'),
  v('signature truncated by one hex digit', ascii, SECRET, s.slice(0, 63), false, 'signature'),
  v('signature with its last hex digit changed', ascii, SECRET, s.slice(0, 63) + flip(s[63]), false, 'signature'),
  v('signature with its first hex digit changed', ascii, SECRET, flip(s[0]) + s.slice(1), false, 'signature'),
  v('signature followed by an extra hex digit', ascii, SECRET, s + '0', false, 'signature'),
  v('signature with a "sha256=" prefix is not a signature', ascii, SECRET, `sha256=${s}`, false, 'signature'),
  v('a malformed entry beside a good one: the good one counts', ascii, SECRET, `zz-not-hex,${s}`, true, 'ok'),
  v('body with a trailing newline, signed without it', Buffer.concat([ascii, Buffer.from('\n')]), SECRET, s, false, 'signature'),
  v('body with a trailing newline, signed with it', Buffer.concat([ascii, Buffer.from('\n')]), SECRET, sign(SECRET, Buffer.concat([ascii, Buffer.from('\n')])), true, 'ok'),
  v('createdAt exactly at the tolerance is accepted', ascii, SECRET, s, true, 'ok', { now: CREATED_S + 300 }),
  v('createdAt older than the tolerance (expired)', ascii, SECRET, s, true, 'tolerance', { now: CREATED_S + 301 }),
  v('createdAt an hour old (expired)', ascii, SECRET, s, true, 'tolerance', { now: CREATED_S + 3600 }),
  v('createdAt in the future beyond the tolerance', ascii, SECRET, s, true, 'tolerance', { now: CREATED_S - 301 }),
  v('createdAt an hour old with toleranceSeconds 7200', ascii, SECRET, s, true, 'ok', { now: CREATED_S + 3600, toleranceSeconds: 7200 }),
  v('a bad signature is reported before an expired createdAt', ascii, SECRET_OTHER, s, false, 'signature', { now: CREATED_S + 3600 }),
  v('signed body that is not JSON', Buffer.from('not json'), SECRET, sign(SECRET, Buffer.from('not json')), true, 'payload'),
  v('signed JSON without a createdAt', Buffer.from('{"id":"evt_x","type":"payment.succeeded"}'), SECRET,
    sign(SECRET, Buffer.from('{"id":"evt_x","type":"payment.succeeded"}')), true, 'payload'),
]

const doc = {
  description: [
    'Webhook signature vectors shared by the Till client libraries (JavaScript, Python, Go).',
    'X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the UTF-8 bytes of the whole',
    'secret string including "whsec_". The header holds one or more signatures separated by commas, each optionally',
    'surrounded by spaces; after a secret rotation it holds two. An entry that is not exactly 64 hex digits is ignored;',
    'hex is accepted in either case. verifyWebhookSignature(body, header, secret) must return `valid`, comparing in',
    'constant time. constructEvent(body, header, secret, {toleranceSeconds}) verifies first ("signature" when no entry',
    'matches), then parses the JSON ("payload" when it is not an object with a parsable createdAt), then fails with',
    '"tolerance" when |now - createdAt| > toleranceSeconds (default 300); "ok" returns the event, whose id is `eventId`.',
    '`now` is unix seconds for the tolerance check. Generated by scripts/gen-webhook-vectors.ts.',
  ].join(' '),
  defaultToleranceSeconds: 300,
  vectors,
}
writeFileSync(OUT, JSON.stringify(doc, null, 2) + '\n')
console.log(`wrote ${vectors.length} vectors to ${OUT}`)
