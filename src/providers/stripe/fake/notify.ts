/**
 * Events as Stripe sends them (docs/providers.md#stripe-stripe): `{id, object: "event", type, created,
 * data: {object}}`, POSTed to every endpoint of the account subscribed to the type, each signed with
 * that endpoint's secret in `Stripe-Signature: t=…,v1=…` over "<t>.<body>" (its own code here, not
 * the adapter's), any 2xx acknowledging, retried on Stripe's backing-off schedule (scaled by the
 * time factor), then failed. The delivery knobs (delay, drop, duplicate, reorder, a bad signature) act here.
 */
import { createHmac } from 'node:crypto'
import { Dispatcher, post, takeNotifyKnob } from '../../fake-kit/delivery.js'
import { SIGNATURE_HEADER, WEBHOOK_RETRY_SCHEDULE_SEC } from '../constants.js'
import { stripeId, type Delivery, type Endpoint, type FakeStore, type StoredEvent } from './store.js'

interface Outgoing {
  event: StoredEvent
  endpoint: Endpoint
}

const DEADLINE_MS = 30_000

/** The header for a body: a timestamp and one v1 per secret (two while a secret is being rolled). */
export function signatureHeader(secrets: string[], timestamp: number, body: string) {
  const v1 = secrets.map((s) => `v1=${createHmac('sha256', s).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`)
  return [`t=${timestamp}`, ...v1].join(',')
}

export class Notifier {
  private readonly dispatcher: Dispatcher<Outgoing>
  /** A secret being rolled: signatures carry a v1 for it too (Stripe signs with both until the old one expires). */
  readonly rolling = new Map<string, string>()

  constructor(private readonly store: FakeStore) {
    this.dispatcher = new Dispatcher(store.jobs, (out) => this.deliver(out, 0), (out) => this.log(out, 0, false, null, false, 'dropped by the drop knob'))
  }

  async emit(secretKey: string, type: string, object: unknown): Promise<StoredEvent> {
    const created = this.store.nowSec()
    const id = stripeId('evt')
    const body = JSON.stringify({ id, object: 'event', api_version: '2025-10-29.clover', created, data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type }, null, 2)
    const event: StoredEvent = { id, secretKey, type, body, created }
    this.store.events.set(id, event)
    const endpoints = (this.store.accounts.get(secretKey)?.endpoints ?? []).filter((e) => e.events.includes('*') || e.events.includes(type))
    const knob = takeNotifyKnob(this.store.knobs)
    for (const endpoint of endpoints) await this.dispatcher.send({ event, endpoint }, knob)
    return event
  }

  async resend(eventId: string): Promise<boolean> {
    const event = this.store.events.get(eventId)
    if (!event) return false
    for (const endpoint of this.store.accounts.get(event.secretKey)?.endpoints ?? []) await this.deliver({ event, endpoint }, 0)
    return true
  }

  flushHeld = () => this.dispatcher.flushHeld()

  private async deliver(out: Outgoing, attempt: number): Promise<void> {
    const bad = this.store.knobs.badSignatureNext
    this.store.knobs.badSignatureNext = false
    const secrets = bad ? [`${out.endpoint.secret}-not-the-secret`] : [out.endpoint.secret, ...(this.rolling.has(out.endpoint.id) ? [this.rolling.get(out.endpoint.id)!] : [])]
    const headers = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', [SIGNATURE_HEADER]: signatureHeader(secrets, this.store.nowSec(), out.event.body) }
    const { status, error } = await post(out.endpoint.url, headers, out.event.body, DEADLINE_MS)
    const acked = status !== null && status >= 200 && status < 300
    this.log(out, attempt, bad, status, acked, error)
    if (acked || attempt >= WEBHOOK_RETRY_SCHEDULE_SEC.length) return
    this.store.jobs.schedule(WEBHOOK_RETRY_SCHEDULE_SEC[attempt] * 1000 * this.store.timeFactor, () => this.deliver(out, attempt + 1))
  }

  private log(out: Outgoing, attempt: number, badSignature: boolean, status: number | null, acked: boolean, error?: string) {
    const d: Delivery = { eventId: out.event.id, type: out.event.type, url: out.endpoint.url, attempt, badSignature, status, acked, atMs: this.store.clock().getTime() }
    if (error) d.error = error
    this.store.deliveries.push(d)
  }
}
