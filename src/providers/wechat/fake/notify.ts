/**
 * Notifications as WeChat sends them (docs/providers.md#wechat-pay-wechat): an envelope whose resource is the
 * plaintext sealed with the merchant's APIv3 key, signed over `ts\nnonce\nbody\n`, POSTed to
 * notify_url, and retried on the real schedule (scaled by the time factor) until a 200 or 204.
 * The delivery knobs (delay, drop, duplicate, reorder, probe) act here.
 */
import { Dispatcher, post, takeNotifyKnob } from '../../fake-kit/delivery.js'
import { NOTIFY_RETRY_SCHEDULE_SEC, SIGN_SCHEME, SIGNTEST_PREFIX } from '../constants.js'
import { beijing, gcmSeal, randomAlnum, signB64, uuid, wechatSigningString } from './crypto.js'
import type { Delivery, FakeStore, Order, RefundRecord } from './store.js'
import { refundNoticeView, signer, transactionView } from './views.js'

interface Outgoing {
  id: string
  eventType: string
  ref: string
  url: string
  body: string
}

const ACK_DEADLINE_MS = 5_000
const LENIENT_DEADLINE_MS = 30_000

export class Notifier {
  private readonly dispatcher: Dispatcher<Outgoing>

  constructor(private readonly store: FakeStore) {
    this.dispatcher = new Dispatcher(store.jobs, (out) => this.deliver(out, 0), (out) => this.log(out, 0, false, null, false, 'dropped by the drop knob'))
  }

  /**
   * `url` overrides notify_url: the resend knob, e.g. to post a genuine notification to another configuration.
   * `plain` overrides what it reports, signed and sealed all the same: a report that disagrees with the order, for tests.
   */
  paymentSucceeded(o: Order, url = o.notifyUrl, plain: object = transactionView(o)) {
    return this.emit(o.mchId, url, 'TRANSACTION.SUCCESS', '支付成功', 'transaction', plain, o.outTradeNo)
  }

  refundSettled(r: RefundRecord, url = r.notifyUrl) {
    if (!url) return Promise.resolve()
    const summary = r.status === 'SUCCESS' ? '退款成功' : r.status === 'ABNORMAL' ? '退款异常' : '退款关闭'
    return this.emit(r.mchId, url, `REFUND.${r.status}`, summary, 'refund', refundNoticeView(r), r.outRefundNo)
  }

  private async emit(mchId: string, url: string, eventType: string, summary: string, kind: 'transaction' | 'refund', plain: object, ref: string) {
    const merchant = this.store.merchants.get(mchId)!
    const nonce = randomAlnum(12)
    const envelope = {
      id: uuid(),
      create_time: beijing(this.store.nowMs()),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary,
      resource: {
        original_type: kind,
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: gcmSeal(merchant.apiV3Key, nonce, kind, JSON.stringify(plain)),
        associated_data: kind,
        nonce,
      },
    }
    const out: Outgoing = { id: envelope.id, eventType, ref, url, body: JSON.stringify(envelope) }
    const knobs = this.store.knobs
    const knob = takeNotifyKnob(knobs)
    if (knobs.probeNext) {
      knobs.probeNext = false
      await this.deliver(out, 0, true)
    }
    await this.dispatcher.send(out, knob)
  }

  /** Releases a notification still held by `reorder` (nothing followed it). */
  flushHeld = () => this.dispatcher.flushHeld()

  private async deliver(out: Outgoing, attempt: number, probe = false): Promise<void> {
    const ts = String(Math.floor(this.store.nowMs() / 1000))
    const nonce = randomAlnum(32)
    const who = signer(this.store)
    const signature = probe
      ? `${SIGNTEST_PREFIX}${randomAlnum(64)}`
      : signB64(who.key, wechatSigningString(ts, nonce, out.body))
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'Mozilla/4.0',
      'Wechatpay-Timestamp': ts,
      'Wechatpay-Nonce': nonce,
      'Wechatpay-Serial': who.serial,
      'Wechatpay-Signature': signature,
      'Wechatpay-Signature-Type': SIGN_SCHEME,
      'Request-ID': `08${randomAlnum(30)}`,
    }
    const deadline = this.store.knobs.strictAckDeadline ? ACK_DEADLINE_MS : LENIENT_DEADLINE_MS
    const { status, error } = await post(out.url, headers, out.body, deadline)
    const acked = status === 200 || status === 204
    this.log(out, attempt, probe, status, acked, error)
    // A rejected probe is what WeChat wants; the genuine notification follows anyway.
    if (probe || acked || attempt >= NOTIFY_RETRY_SCHEDULE_SEC.length) return
    this.store.jobs.schedule(NOTIFY_RETRY_SCHEDULE_SEC[attempt] * 1000 * this.store.timeFactor, () => this.deliver(out, attempt + 1))
  }

  private log(out: Outgoing, attempt: number, probe: boolean, status: number | null, acked: boolean, error?: string) {
    const d: Delivery = { id: out.id, eventType: out.eventType, ref: out.ref, url: out.url, attempt, probe, status, acked, atMs: this.store.clock().getTime() }
    if (error) d.error = error
    this.store.deliveries.push(d)
  }
}
