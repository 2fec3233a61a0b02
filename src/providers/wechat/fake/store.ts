/**
 * The fake's in-memory world: merchants it knows, its own signing identity, orders and refunds with
 * their state machines (docs/providers.md#testing-offline-till-fake-wechat), the test knobs, and its timed jobs (fake-kit/jobs.ts).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { defaultNotifyKnob } from '../../fake-kit/delivery.js'
import type { ForcedError as BaseForcedError } from '../../fake-kit/forced-errors.js'
import { JobQueue } from '../../fake-kit/jobs.js'
import { StatementKnobBook } from '../../fake-kit/statement-knobs.js'
import { PUBLIC_KEY_ID_PREFIX } from '../constants.js'
import type { BillLine } from './bills.js'
import { NOT_BEFORE_LEAD_MS, selfSignedCertificate, type FakeCertificate } from './cert.js'
import { randomAlnum, randomDigits } from './crypto.js'

export type FakeService = 'mainland' | 'cross_border'

export interface FakeMerchant {
  mchId: string
  appIds: string[]
  serialNo: string
  publicKey: KeyObject
  apiV3Key: string
  /** Which API the merchant number was opened for: a cross-border one is refused by the mainland API and vice versa. */
  service: FakeService
  /** Cross-border: the one currency WeChat settles (and the merchant lists) in. */
  settlementCurrency?: string
}

export type TradeState = 'NOTPAY' | 'SUCCESS' | 'CLOSED' | 'REFUND'
export type TradeType = 'NATIVE' | 'JSAPI' | 'MWEB'

export interface Order {
  mchId: string
  appId: string
  outTradeNo: string
  tradeType: TradeType
  /** The request body as parsed, to tell a same-body retry from a conflicting one. */
  fingerprint: string
  description: string
  total: number
  notifyUrl: string
  expiresAtMs: number
  attach?: string
  openid?: string
  state: TradeState
  prepayId: string
  codeUrl?: string
  h5Url?: string
  transactionId?: string
  successTimeMs?: number
  payerOpenid?: string
  bankType?: string
  failedTries: number
  /** Knob: pay this order the moment a close request reaches it (a customer paying between query and close). */
  payOnClose?: boolean
  service: FakeService
  /** The listed currency; `total` is in its minor units. */
  currency: string
  /** Cross-border, once paid: what the payer was charged in CNY fen, and the rate × 10^8 used. */
  payerTotal?: number
  rate?: number
}

export type RefundStatus = 'PROCESSING' | 'SUCCESS' | 'CLOSED' | 'ABNORMAL'

export interface RefundRecord {
  mchId: string
  outRefundNo: string
  refundId: string
  outTradeNo: string
  transactionId: string
  refund: number
  total: number
  reason?: string
  notifyUrl?: string
  status: RefundStatus
  createTimeMs: number
  successTimeMs?: number
  /** What PROCESSING becomes when the settlement job runs. */
  outcome: RefundStatus
  service: FakeService
  currency: string
  /** Cross-border: the CNY fen going back to the payer, at the payment's rate. */
  payerRefund?: number
  rate?: number
}

export interface RefundOutcome {
  status: Exclude<RefundStatus, 'PROCESSING'>
  delayMs: number
  /** Answer the create call with the final status instead of PROCESSING. */
  sync: boolean
}

export interface ForcedError extends BaseForcedError {
  code: string
}

export interface Delivery {
  id: string
  eventType: string
  ref: string
  url: string
  attempt: number
  probe: boolean
  status: number | null
  acked: boolean
  atMs: number
  error?: string
}

export interface Platform {
  mode: 'publicKey' | 'platformCert'
  publicKeyId: string
  key: { privateKey: KeyObject; publicKey: KeyObject }
  /** Newest first; the first signs in certificate mode. Older ones are still served after a rotation. */
  certs: Array<FakeCertificate & { privateKey: KeyObject; publicKey: KeyObject }>
}

export interface BillDownload {
  mchId: string
  day: string
  body: Buffer
  gzip: boolean
  expiresAtMs: number
}

export type KeyPair = { privateKey: KeyObject; publicKey: KeyObject }
export const rsaPair = (): KeyPair => generateKeyPairSync('rsa', { modulusLength: 2048 })

export function newCertificate(now: Date, pair: KeyPair = rsaPair()) {
  return { ...selfSignedCertificate(pair.publicKey, pair.privateKey, now), ...pair }
}

export class FakeStore {
  readonly merchants = new Map<string, FakeMerchant>()
  readonly orders = new Map<string, Order>()
  readonly refunds = new Map<string, RefundRecord>()
  readonly deliveries: Delivery[] = []
  /** Every /v3 call and its answer, for tests to see what the adapter asked. */
  /** Every API call: what was sent (body, the Wechatpay-Serial it named) and the answer's status. */
  readonly requests: Array<{ method: string; path: string; request?: unknown; wechatpaySerial?: string; status: number; atMs: number }> = []
  readonly platform: Platform
  readonly knobs = {
    clockSkewSec: 0,
    enforceAccept: true,
    rejectUnknownFields: true,
    notify: defaultNotifyKnob(),
    probeNext: false,
    /** Strict mode: an ack slower than 5 s counts as a failure, as at WeChat. */
    strictAckDeadline: false,
    refundOutcomes: new Map<string, RefundOutcome>(),
    /** The day's rate per listed currency: CNY per major unit (WeChat updates it daily at 10:00 Beijing time). */
    rates: { HKD: 0.92, JPY: 0.048, USD: 7.2, EUR: 7.8 } as Record<string, number>,
    errors: [] as ForcedError[],
  }
  readonly jobs: JobQueue
  /** What each day's statement gets wrong on purpose (fake-kit/statement-knobs.ts). */
  readonly statementKnobs = new StatementKnobBook()
  /** Each merchant's day (`mchId:YYYY-MM-DD`) as first served after publication: WeChat never updates a bill. */
  readonly billSnapshots = new Map<string, BillLine[]>()
  /** download_url tokens: the file's bytes as hashed, valid 5 minutes. */
  readonly billDownloads = new Map<string, BillDownload>()

  constructor(
    readonly clock: () => Date,
    readonly timeFactor: number,
    mode: Platform['mode'],
    publicKeyId?: string,
    /** Where RSA keys come from; tests pass a pool, since generating one takes a quarter second. */
    readonly newKeyPair: () => KeyPair = rsaPair,
  ) {
    this.jobs = new JobQueue(clock)
    this.platform = {
      mode,
      publicKeyId: publicKeyId ?? `${PUBLIC_KEY_ID_PREFIX}01${randomDigits(26)}`,
      key: newKeyPair(),
      certs: [newCertificate(clock(), newKeyPair())],
    }
  }

  /**
   * A new platform certificate, effective at least a second after the newest one: WeChat Pay's
   * clients (the official SDKs) name the certificate with the latest effective time, and two issued
   * in the same second would tie and leave their choice to map order.
   */
  rotateCertificate(): void {
    const newest = this.platform.certs[0]
    const at = Math.max(this.clock().getTime(), newest ? newest.notBefore.getTime() + NOT_BEFORE_LEAD_MS + 1000 : 0)
    this.platform.certs.unshift(newCertificate(new Date(at), this.newKeyPair()))
  }

  /** The fake's own idea of the time: the shared clock plus the clock-skew knob. */
  nowMs(): number {
    return this.clock().getTime() + this.knobs.clockSkewSec * 1000
  }

  order(mchId: string, outTradeNo: string): Order | undefined {
    const o = this.orders.get(`${mchId}:${outTradeNo}`)
    // An unpaid order past time_expire is closed, as WeChat does lazily.
    if (o && o.state === 'NOTPAY' && this.nowMs() >= o.expiresAtMs) o.state = 'CLOSED'
    return o
  }

  findOrder(pred: (o: Order) => boolean): Order | undefined {
    for (const o of this.orders.values()) if (pred(o)) return this.order(o.mchId, o.outTradeNo)
    return undefined
  }

  refundsOf(o: Order) {
    return [...this.refunds.values()].filter((r) => r.mchId === o.mchId && r.outTradeNo === o.outTradeNo)
  }

  newPrepayId() {
    const d = new Date(this.nowMs() + 8 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14)
    return `wx${d}${randomAlnum(20).toLowerCase()}`
  }

  newTransactionId = () => `42${randomDigits(26)}`
  newRefundId = () => `50${randomDigits(27)}`
}
