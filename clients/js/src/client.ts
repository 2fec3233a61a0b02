/**
 * The Till client. Each resource is a declarative list of operations (verb + path template, after
 * stripe-node's resources) over one RequestSender; argument and result types are looked up in the
 * OpenAPI types by that same path, so a method cannot drift from the endpoint it calls.
 */
import { listMethod, type ListMethod } from './pagination.js'
import { RequestSender, type HttpMethod, type RequestOptions } from './request.js'
import type {
  BodyOf, EventEnvelope, EventListParams, Path, PaymentLink, PaymentLinkListParams, QueryOf, RecordListParams, RecordWithRefunds, RefundListParams, RefundObject, ResultOf,
  Session, SessionListParams, Verb,
} from './types.js'
import { constructEvent, verifyWebhookSignature } from './webhooks.js'

export interface TillConfig {
  /** A secret key, sk_test_… or sk_live_…: the mode follows from it. Server-side only. */
  apiKey: string
  /** Where your Till is served, without /api/v1 (default http://localhost:8080). */
  baseUrl?: string
  /** Per attempt, including reading the answer (default 30000). */
  timeoutMs?: number
  /** Retries after the first attempt, for network errors, timeouts, 409, 429 and 5xx (default 2). */
  maxRetries?: number
  /** First backoff wait in ms, doubled per retry, with jitter (default 500). */
  retryBaseMs?: number
  /** Longest backoff wait in ms (default 8000). */
  retryMaxMs?: number
  /** A Retry-After longer than this (ms) is not waited for; the error is thrown instead (default 60000). */
  maxRetryAfterMs?: number
  /** A fetch implementation (default: the global fetch of Node 18+). */
  fetch?: typeof fetch
}

type InputKind = 'body' | 'query' | 'none'
type KindOf<P extends Path, M extends Verb> =
  [BodyOf<P, M>] extends [never] ? ([QueryOf<P, M>] extends [never] ? 'none' : 'query') : 'body'
type InputOf<P extends Path, M extends Verb> = KindOf<P, M> extends 'body' ? BodyOf<P, M> : QueryOf<P, M>
/** One string argument per `{…}` in the path template, in order. */
type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [id: string, ...PathArgs<Rest>] : []
/** The params object: optional when every field is. */
type InputArgs<T> = [T] extends [never] ? [] : {} extends T ? [params?: T] : [params: T]

/** A method for one operation: (path ids…, params?, options?) → the operation's 200 answer. */
export type Method<P extends Path, M extends Verb> =
  (...args: [...PathArgs<P>, ...InputArgs<InputOf<P, M>>, options?: RequestOptions]) => Promise<ResultOf<P, M>>

const PLACEHOLDER = /\{[^}]+\}/g

function operations(sender: RequestSender) {
  /** `input` must name what the OpenAPI document says the operation takes; the type checks it. */
  return <P extends Path, M extends Verb>(verb: M, path: P, input: KindOf<P, M>): Method<P, M> => {
    const idCount = path.match(PLACEHOLDER)?.length ?? 0
    const call = async (...args: unknown[]) => {
      const ids = args.slice(0, idCount)
      for (const id of ids) {
        // An undefined id would become ".../undefined" and a confusing 404.
        if (typeof id !== 'string' || id === '') throw new TypeError(`${verb.toUpperCase()} ${path}: the id must be a non-empty string, got ${String(id)}`)
      }
      const rest = args.slice(idCount)
      const params = input === 'none' ? undefined : rest.shift()
      const options = rest.shift() as RequestOptions | undefined
      let i = 0
      const url = path.replace(PLACEHOLDER, () => encodeURIComponent(ids[i++] as string))
      const payload = input === 'body' ? { body: params } : input === 'query' ? { query: params as object | undefined } : {}
      return sender.request(verb.toUpperCase() as HttpMethod, url, payload, options)
    }
    return call as Method<P, M>
  }
}

export class Till {
  /** Verifies X-Service-Signature over the raw body; true when any of its signatures matches. */
  static readonly verifyWebhookSignature = verifyWebhookSignature
  /** Verifies, parses and checks createdAt (default tolerance 300 s); throws WebhookVerificationError. */
  static readonly constructEvent = constructEvent

  /** POST /api/v1/checkout: create a session, then redirect the customer to its `url`. */
  readonly createCheckout: Method<'/api/v1/checkout', 'post'>
  /** GET /api/v1/sessions/{id}: the session, with `record` once paid (checking `status` narrows it). */
  readonly getSession: (id: string, options?: RequestOptions) => Promise<Session>
  /** POST /api/v1/refunds: refund a record, fully (no amount) or partially. */
  readonly refund: Method<'/api/v1/refunds', 'post'>

  /** Sessions, newest first: filter by status, creation time or metadata (`{ metadata: { order: 'A-1' } }`). */
  readonly sessions: {
    /** One page when awaited; every session when iterated with `for await`. */
    list: ListMethod<SessionListParams, Session>
    retrieve: (id: string, options?: RequestOptions) => Promise<Session>
    /** POST /api/v1/sessions/{id}/cancel: an open session becomes `canceled` (its provider order closed first); 400 `session_terminal` otherwise. */
    cancel: (id: string, options?: RequestOptions) => Promise<Session>
    /** POST /api/v1/sessions/{id}/expire: an open session becomes `expired` now; 400 `session_terminal` otherwise. */
    expire: (id: string, options?: RequestOptions) => Promise<Session>
  }
  /** Payment records, each with its refunds, newest first. */
  readonly records: {
    list: ListMethod<RecordListParams, RecordWithRefunds>
    retrieve: Method<'/api/v1/records/{id}', 'get'>
  }
  /** Refunds, newest first; `create` is `refund`. */
  readonly refunds: {
    create: Method<'/api/v1/refunds', 'post'>
    list: ListMethod<RefundListParams, RefundObject>
    retrieve: Method<'/api/v1/refunds/{id}', 'get'>
  }

  /** Test mode only (a live key gets 404): drive sessions and refunds without a customer. */
  readonly testHelpers: {
    sessions: {
      /** Pays through the mock provider; `refundBehavior` picks how its refunds will behave. */
      pay: Method<'/api/v1/test_helpers/sessions/{id}/pay', 'post'>
      fail: Method<'/api/v1/test_helpers/sessions/{id}/fail', 'post'>
      cancel: Method<'/api/v1/test_helpers/sessions/{id}/cancel', 'post'>
      expire: Method<'/api/v1/test_helpers/sessions/{id}/expire', 'post'>
    }
    refunds: {
      /** Settles a pending refund (paid with refundBehavior 'pending'). */
      succeed: Method<'/api/v1/test_helpers/refunds/{id}/succeed', 'post'>
      fail: Method<'/api/v1/test_helpers/refunds/{id}/fail', 'post'>
    }
  }

  /** Where Till sends signed webhooks, per mode (the key's). */
  readonly webhookEndpoints: {
    /** The answer carries the endpoint's signing secret, shown only here: store it. */
    create: Method<'/api/v1/webhook_endpoints', 'post'>
    list: Method<'/api/v1/webhook_endpoints', 'get'>
    retrieve: Method<'/api/v1/webhook_endpoints/{id}', 'get'>
    update: Method<'/api/v1/webhook_endpoints/{id}', 'patch'>
    delete: Method<'/api/v1/webhook_endpoints/{id}', 'delete'>
    /** A new secret; the old one keeps signing beside it for 24 h (the header then carries both), as do secrets replaced before it within their own 24 h. */
    rotateSecret: Method<'/api/v1/webhook_endpoints/{id}/rotate_secret', 'post'>
    /** The secrets replaced by rotations stop signing now (a leaked one); only the current one signs. */
    expirePreviousSecrets: Method<'/api/v1/webhook_endpoints/{id}/expire_previous_secrets', 'post'>
  }

  /** Events, newest first, with their deliveries; redeliver sends one again now. */
  readonly events: {
    /** One page when awaited; every event when iterated with `for await`. */
    list: ListMethod<EventListParams, EventEnvelope>
    retrieve: Method<'/api/v1/events/{id}', 'get'>
    redeliver: Method<'/api/v1/events/{id}/redeliver', 'post'>
  }

  /** Payment links: pages (`url`) that make a fresh session for each buyer; create, read, list, update or deactivate. */
  readonly paymentLinks: {
    /** `amount`, or `minAmount` and `maxAmount` for an amount the buyer enters. */
    create: Method<'/api/v1/payment_links', 'post'>
    /** One page when awaited; every link when iterated with `for await`. */
    list: ListMethod<PaymentLinkListParams, PaymentLink>
    retrieve: Method<'/api/v1/payment_links/{id}', 'get'>
    /** Changes the given fields only; `{ active: false }` deactivates the link. */
    update: Method<'/api/v1/payment_links/{id}', 'post'>
  }

  constructor(config: TillConfig) {
    if (!config || typeof config.apiKey !== 'string' || config.apiKey === '') {
      throw new TypeError('new Till({ apiKey }): apiKey is required (sk_test_… or sk_live_…)')
    }
    const baseUrl = (config.baseUrl ?? 'http://localhost:8080').replace(/\/+$/, '')
    if (!/^https?:$/.test(new URL(baseUrl).protocol)) throw new TypeError(`baseUrl must be an http(s) address, got ${baseUrl}`)
    const fetchImpl = config.fetch ?? globalThis.fetch
    if (typeof fetchImpl !== 'function') throw new TypeError('no global fetch: use Node 18 or newer, or pass config.fetch')
    const sender = new RequestSender({
      apiKey: config.apiKey,
      baseUrl,
      timeoutMs: config.timeoutMs ?? 30_000,
      maxRetries: config.maxRetries ?? 2,
      retryBaseMs: config.retryBaseMs ?? 500,
      retryMaxMs: config.retryMaxMs ?? 8_000,
      maxRetryAfterMs: config.maxRetryAfterMs ?? 60_000,
      fetch: fetchImpl,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    })
    const op = operations(sender)

    this.createCheckout = op('post', '/api/v1/checkout', 'body')
    // The served session type, narrowed: `record` is there exactly when status is paid or refunded.
    this.getSession = op('get', '/api/v1/sessions/{id}', 'none') as (id: string, options?: RequestOptions) => Promise<Session>
    this.refund = op('post', '/api/v1/refunds', 'body')
    this.sessions = {
      list: listMethod(op('get', '/api/v1/sessions', 'query') as (p?: SessionListParams, o?: RequestOptions) => Promise<{ data: Session[]; hasMore: boolean }>),
      retrieve: this.getSession,
      cancel: op('post', '/api/v1/sessions/{id}/cancel', 'none') as (id: string, options?: RequestOptions) => Promise<Session>,
      expire: op('post', '/api/v1/sessions/{id}/expire', 'none') as (id: string, options?: RequestOptions) => Promise<Session>,
    }
    this.records = {
      list: listMethod(op('get', '/api/v1/records', 'query')),
      retrieve: op('get', '/api/v1/records/{id}', 'none'),
    }
    this.refunds = {
      create: this.refund,
      list: listMethod(op('get', '/api/v1/refunds', 'query')),
      retrieve: op('get', '/api/v1/refunds/{id}', 'none'),
    }
    this.webhookEndpoints = {
      create: op('post', '/api/v1/webhook_endpoints', 'body'),
      list: op('get', '/api/v1/webhook_endpoints', 'none'),
      retrieve: op('get', '/api/v1/webhook_endpoints/{id}', 'none'),
      update: op('patch', '/api/v1/webhook_endpoints/{id}', 'body'),
      delete: op('delete', '/api/v1/webhook_endpoints/{id}', 'none'),
      rotateSecret: op('post', '/api/v1/webhook_endpoints/{id}/rotate_secret', 'none'),
      expirePreviousSecrets: op('post', '/api/v1/webhook_endpoints/{id}/expire_previous_secrets', 'none'),
    }
    this.events = {
      list: listMethod(op('get', '/api/v1/events', 'query')),
      retrieve: op('get', '/api/v1/events/{id}', 'none'),
      redeliver: op('post', '/api/v1/events/{id}/redeliver', 'body'),
    }
    this.paymentLinks = {
      create: op('post', '/api/v1/payment_links', 'body'),
      list: listMethod(op('get', '/api/v1/payment_links', 'query')),
      retrieve: op('get', '/api/v1/payment_links/{id}', 'none'),
      update: op('post', '/api/v1/payment_links/{id}', 'body'),
    }
    this.testHelpers = {
      sessions: {
        pay: op('post', '/api/v1/test_helpers/sessions/{id}/pay', 'body'),
        fail: op('post', '/api/v1/test_helpers/sessions/{id}/fail', 'none'),
        cancel: op('post', '/api/v1/test_helpers/sessions/{id}/cancel', 'none'),
        expire: op('post', '/api/v1/test_helpers/sessions/{id}/expire', 'none'),
      },
      refunds: {
        succeed: op('post', '/api/v1/test_helpers/refunds/{id}/succeed', 'none'),
        fail: op('post', '/api/v1/test_helpers/refunds/{id}/fail', 'none'),
      },
    }
  }
}
