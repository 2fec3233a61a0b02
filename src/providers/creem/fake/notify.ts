/**
 * Webhooks as Creem sends them (docs/providers.md#creem-creem): `{id, eventType, created_at, object}`, signed
 * with `creem-signature` over the exact body, POSTed to every URL the account registered, any 2xx
 * acknowledging, retried after 30 s, 1 min, 5 min and 1 h (scaled by the time factor), then failed.
 * The delivery knobs (delay, drop, duplicate, reorder, a bad signature) act here.
 */
import { Dispatcher, post, takeNotifyKnob } from '../../fake-kit/delivery.js'
import { SIGNATURE_HEADER, WEBHOOK_RETRY_SCHEDULE_SEC } from '../constants.js'
import { signBody } from './crypto.js'
import { creemId, type Delivery, type FakeStore, type StoredEvent } from './store.js'

interface Outgoing {
  event: StoredEvent
  url: string
}

const DEADLINE_MS = 30_000

export class Notifier {
  private readonly dispatcher: Dispatcher<Outgoing>

  constructor(private readonly store: FakeStore) {
    this.dispatcher = new Dispatcher(store.jobs, (out) => this.deliver(out, 0), (out) => this.log(out, 0, false, null, false, 'dropped by the drop knob'))
  }

  /** Records the event and delivers it to every webhook URL of the account, as the knobs say. */
  async emit(apiKey: string, eventType: string, object: unknown): Promise<StoredEvent> {
    const createdAtMs = this.store.nowMs()
    const id = creemId('evt')
    const event: StoredEvent = { id, apiKey, eventType, createdAtMs, body: JSON.stringify({ id, eventType, created_at: createdAtMs, object }) }
    this.store.events.set(id, event)
    const urls = this.store.accounts.get(apiKey)?.webhookUrls ?? []
    const knob = takeNotifyKnob(this.store.knobs)
    for (const url of urls) await this.dispatcher.send({ event, url }, knob)
    return event
  }

  /** The dashboard's "resend": the same event, the same bytes, again (to `url`, or to every registered URL). */
  async resend(eventId: string, url?: string): Promise<boolean> {
    const event = this.store.events.get(eventId)
    if (!event) return false
    const urls = url ? [url] : this.store.accounts.get(event.apiKey)?.webhookUrls ?? []
    for (const u of urls) await this.deliver({ event, url: u }, 0)
    return true
  }

  /** Releases a delivery still held by `reorder` (nothing followed it). */
  flushHeld = () => this.dispatcher.flushHeld()

  private async deliver(out: Outgoing, attempt: number): Promise<void> {
    const account = this.store.accounts.get(out.event.apiKey)
    const bad = this.store.knobs.badSignatureNext
    this.store.knobs.badSignatureNext = false
    const secret = bad ? `${account?.webhookSecret ?? ''}-not-the-secret` : account?.webhookSecret ?? ''
    const headers = { 'content-type': 'application/json', 'user-agent': 'Creem-Webhooks/1.0', [SIGNATURE_HEADER]: signBody(secret, out.event.body) }
    const { status, error } = await post(out.url, headers, out.event.body, DEADLINE_MS)
    const acked = status !== null && status >= 200 && status < 300
    this.log(out, attempt, bad, status, acked, error)
    if (acked || attempt >= WEBHOOK_RETRY_SCHEDULE_SEC.length) return
    this.store.jobs.schedule(WEBHOOK_RETRY_SCHEDULE_SEC[attempt] * 1000 * this.store.timeFactor, () => this.deliver(out, attempt + 1))
  }

  private log(out: Outgoing, attempt: number, badSignature: boolean, status: number | null, acked: boolean, error?: string) {
    const d: Delivery = { eventId: out.event.id, eventType: out.event.eventType, url: out.url, attempt, badSignature, status, acked, atMs: this.store.clock().getTime() }
    if (error) d.error = error
    this.store.deliveries.push(d)
  }
}
