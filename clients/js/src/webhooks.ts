/**
 * Webhook verification, after stripe-node's Webhooks.ts: no network I/O, verify first and parse
 * after, every signature in the header compared in constant time, and errors that name the usual
 * mistake. X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw body bytes keyed with
 * the endpoint secret (`whsec_…`); after a rotation it holds two, comma-separated.
 * The contract is testdata/webhook-signatures.json, shared with the Python and Go clients.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { WebhookEvent } from './types.js'

export const SIGNATURE_HEADER = 'x-service-signature'
export const DEFAULT_TOLERANCE_SECONDS = 300

/** The request body exactly as received: a string (UTF-8), Buffer, Uint8Array or ArrayBuffer. */
export type RawBody = string | Buffer | Uint8Array | ArrayBuffer
/** The header value as frameworks hand it over (Node's `req.headers[…]` may be an array). */
export type SignatureHeader = string | string[] | null | undefined

export type WebhookFailure = 'signature' | 'tolerance' | 'payload'

export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookFailure, message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
  }
}

export interface ConstructEventOptions {
  /** How far createdAt may be from now, either way, in seconds (default 300). Infinity turns the check off. */
  toleranceSeconds?: number
  /** The time to compare createdAt with (default: now). */
  now?: Date
}

/** True when one of the header's signatures is the body's HMAC under `secret`. */
export function verifyWebhookSignature(rawBody: RawBody, signatureHeader: SignatureHeader, secret: string): boolean {
  const body = toBytes(rawBody)
  if (typeof secret !== 'string' || secret === '') throw new TypeError('secret must be the endpoint\'s signing secret (whsec_…)')
  const expected = createHmac('sha256', secret).update(body).digest()
  let matched = false
  // No early exit: the time taken does not depend on which signature, if any, matched.
  for (const candidate of signaturesIn(signatureHeader)) {
    if (timingSafeEqual(candidate, expected)) matched = true
  }
  return matched
}

/** Verifies the signature, parses the event and checks createdAt against the tolerance; throws WebhookVerificationError. */
export function constructEvent(rawBody: RawBody, signatureHeader: SignatureHeader, secret: string, options: ConstructEventOptions = {}): WebhookEvent {
  const body = toBytes(rawBody)
  if (!verifyWebhookSignature(body, signatureHeader, secret)) {
    throw new WebhookVerificationError('signature', signaturesIn(signatureHeader).length === 0 ? NO_SIGNATURE : MISMATCH)
  }
  let event: unknown
  try {
    event = JSON.parse(new TextDecoder().decode(body))
  } catch {
    throw new WebhookVerificationError('payload', 'The webhook body is correctly signed but is not JSON.')
  }
  const createdAt = isObject(event) && typeof event.createdAt === 'string' ? Date.parse(event.createdAt) : NaN
  if (Number.isNaN(createdAt)) {
    throw new WebhookVerificationError('payload', 'The webhook body is correctly signed but is not an event with a createdAt timestamp.')
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) throw new TypeError('toleranceSeconds must be a number ≥ 0')
  const ageMs = (options.now ?? new Date()).getTime() - createdAt
  if (Math.abs(ageMs) > tolerance * 1000) {
    const when = ageMs > 0 ? `${Math.ceil(ageMs / 1000)} s ago` : `${Math.ceil(-ageMs / 1000)} s in the future`
    throw new WebhookVerificationError('tolerance',
      `The event was created ${when}, outside the tolerance of ${tolerance} s. A replayed old delivery is refused this way; ` +
      'if your clock is wrong, fix it; to accept older retried deliveries, raise toleranceSeconds and dedupe on event.id.')
  }
  return event as unknown as WebhookEvent
}

const NO_SIGNATURE = 'No signature found in the X-Service-Signature header value. Pass the header as received ' +
  '(Node lower-cases header names: req.headers[\'x-service-signature\']).'
const MISMATCH = 'No signature in the X-Service-Signature header matches this body and secret. The usual cause: a ' +
  'framework parsed the JSON body and it was serialised again (express.json(), a default body parser, JSON.stringify(req.body)); ' +
  'any change of whitespace, key order or escaping changes the bytes. Pass the raw request body exactly as received ' +
  '(string, Buffer or Uint8Array). Otherwise check the secret: each endpoint, and each mode, has its own whsec_… secret.'

function toBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8')
  if (rawBody instanceof Uint8Array) return rawBody
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody)
  throw new TypeError(
    `The webhook body was given as ${rawBody === null ? 'null' : `a parsed ${typeof rawBody}`}, not the raw bytes. The signature ` +
    'covers the body exactly as sent: pass it as a string, Buffer or Uint8Array, e.g. with express.raw({ type: \'application/json\' }) ' +
    'instead of express.json() (see the raw-body recipes in the @till-payments/node README).')
}

/** Every well-formed entry (64 hex digits, either case) of a comma-separated header; anything else is ignored. */
function signaturesIn(header: SignatureHeader): Buffer[] {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '')
  if (typeof value !== 'string') return []
  return value.split(',').map((s) => s.trim()).filter((s) => /^[0-9a-fA-F]{64}$/.test(s)).map((s) => Buffer.from(s, 'hex'))
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
