/**
 * Asynchronous notifications as Alipay sends them: a form POST of trade_status_sync to notify_url,
 * signed over everything but sign and sign_type, acknowledged only by a 200 whose body is the
 * seven characters `success`, and otherwise sent again 8 times in all over about 25 hours (the
 * schedule scaled by the time factor). The delivery knobs (drop, delay, duplicate, reorder) and
 * the tamper knob act here.
 */
import { Dispatcher, postForText, takeNotifyKnob } from '../../fake-kit/delivery.js'
import type { Delivery, FakeStore, Tamper, Trade } from './store.js'
import { newNotifyId, notificationParams, signNotification, type RefundNotice } from './views.js'
import { beijingText } from './wire.js'

/** The waits before the 2nd to 8th attempts: 4m, 10m, 10m, 1h, 2h, 6h, 15h (docs/providers.md#testing-offline-till-fake-alipay). */
export const RETRY_SCHEDULE_SEC = [240, 600, 600, 3600, 7200, 21600, 54000]
/** How long the fake waits for an answer: its own patience, not a documented figure. */
const ACK_DEADLINE_MS = 15_000

interface Outgoing {
  notifyId: string
  kind: string
  outTradeNo: string
  url: string
  /** The form without notify_time and sign. */
  params: Record<string, string>
  tamper: Tamper | null
}

export class Notifier {
  private readonly dispatcher: Dispatcher<Outgoing>

  constructor(private readonly store: FakeStore) {
    this.dispatcher = new Dispatcher(store.jobs, (out) => this.deliver(out, 0), (out) => this.log(out, 0, {}, null, false, 'dropped by the drop knob'))
  }

  /** The trade's current state, to its notify_url (or `url`: the resend knob's other receiver). */
  send(t: Trade, kind: string, url = t.notifyUrl, refund?: RefundNotice): Promise<void> {
    if (!url) return Promise.resolve()
    const notifyId = newNotifyId()
    const tamper = this.store.knobs.tamperNext
    this.store.knobs.tamperNext = null
    const out: Outgoing = { notifyId, kind, outTradeNo: t.outTradeNo, url, params: notificationParams(this.store, t, notifyId, refund), tamper }
    return this.dispatcher.send(out, takeNotifyKnob(this.store.knobs))
  }

  /** Releases a notification still held by `reorder` (nothing followed it). */
  flushHeld = () => this.dispatcher.flushHeld()

  /** The form of one attempt: sent at notify_time, signed, then changed as the tamper knob says. */
  private form(out: Outgoing): Record<string, string> {
    const params = { ...out.params, notify_time: beijingText(this.store.nowMs()) }
    const t = out.tamper
    if (t?.resign) Object.assign(params, t.fields)
    const signed = { ...params, sign: signNotification(this.store, params) }
    if (t && !t.resign) Object.assign(signed, t.fields)
    if (t?.badSignature) signed.sign = signed.sign.slice(0, 10) + (signed.sign[10] === 'A' ? 'B' : 'A') + signed.sign.slice(11)
    return signed
  }

  private async deliver(out: Outgoing, attempt: number): Promise<void> {
    const form = this.form(out)
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8', 'User-Agent': 'Mozilla/4.0' }
    const { status, text, error } = await postForText(out.url, headers, new URLSearchParams(form).toString(), ACK_DEADLINE_MS)
    const acked = status === 200 && text === 'success'
    this.log(out, attempt, form, status, acked, error)
    if (acked || attempt >= RETRY_SCHEDULE_SEC.length) return
    this.store.jobs.schedule(RETRY_SCHEDULE_SEC[attempt] * 1000 * this.store.timeFactor, () => this.deliver(out, attempt + 1))
  }

  private log(out: Outgoing, attempt: number, params: Record<string, string>, status: number | null, acked: boolean, error?: string) {
    const d: Delivery = { notifyId: out.notifyId, kind: out.kind, outTradeNo: out.outTradeNo, url: out.url, attempt, status, acked, params, atMs: this.store.clock().getTime() }
    if (error) d.error = error
    this.store.deliveries.push(d)
  }
}
