/**
 * The fake's in-memory world: the apps it knows (each in public-key or certificate mode), Alipay's
 * own signing key and certificates, orders, trades and refunds, the test knobs, and its timed jobs
 * (notification retries, expiry), all on one clock that tests share or move.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { defaultNotifyKnob } from '../../fake-kit/delivery.js'
import type { ForcedError as BaseForcedError } from '../../fake-kit/forced-errors.js'
import { JobQueue } from '../../fake-kit/jobs.js'
import { StatementKnobBook } from '../../fake-kit/statement-knobs.js'
import { makePki, type FakePki } from './cert.js'

export type KeyPair = { privateKey: KeyObject; publicKey: KeyObject }
export const rsaPair = (): KeyPair => generateKeyPairSync('rsa', { modulusLength: 2048 })

/** 普通公钥 (Alipay's public key) or 公钥证书 (certificates with serials on every request). */
export type KeyMode = 'publicKey' | 'cert'

export interface FakeApp {
  appId: string
  /** The merchant's PID (2088…), seller_id in answers and notifications. */
  sellerId: string
  mode: KeyMode
  publicKey: KeyObject
  /** Certificate mode: the app certificate the fake issued, and its serial (app_cert_sn). */
  appCertificate?: string
  appCertSn?: string
}

export type Product = 'precreate' | 'page' | 'wap'
export type TradeStatus = 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED' | 'TRADE_FINISHED'

export interface Trade {
  appId: string
  sellerId: string
  outTradeNo: string
  product: Product
  /** The order request's business fields, to tell a repeat from a changed one (ACQ.CONTEXT_INCONSISTENT). */
  fingerprint: string
  subject: string
  body?: string
  /** In fen. */
  total: number
  notifyUrl?: string
  returnUrl?: string
  quitUrl?: string
  passbackParams?: string
  expiresAtMs: number
  /**
   * Alipay creates the trade only when the buyer scans the code or logs in on the cashier
   * (trade_no assigned); until then query and close answer ACQ.TRADE_NOT_EXIST.
   */
  exists: boolean
  status: TradeStatus
  tradeNo?: string
  qrCode?: string
  /** The cashier page's id (page and wap orders). */
  cashierId?: string
  gmtCreateMs?: number
  gmtPaymentMs?: number
  gmtCloseMs?: number
  buyerId?: string
  buyerLogonId?: string
  failedTries: number
  /** Fen refunded so far. */
  refunded: number
  /** Knob: the buyer pays the moment a close request reaches the trade. */
  payOnClose?: boolean
}

export interface RefundRecord {
  appId: string
  outTradeNo: string
  tradeNo: string
  outRequestNo: string
  /** In fen. */
  amount: number
  reason?: string
  gmtRefundMs: number
  /** fastpay.refund.query shows refund_status only from then on (the docs: query 10 s or more after the refund). */
  visibleAtMs: number
}

export interface ForcedError extends BaseForcedError {
  code: string
  subCode: string
  subMsg: string
}

export interface Delivery {
  notifyId: string
  /** What the notification reports: a payment, a refund, a closed or finished trade, or a resend. */
  kind: string
  outTradeNo: string
  url: string
  attempt: number
  status: number | null
  /** The receiver answered 200 with the body `success`. */
  acked: boolean
  /** The form as sent. */
  params: Record<string, string>
  atMs: number
  error?: string
}

export interface LoggedRequest {
  httpMethod: string
  path: string
  /** The `method` parameter: the API called. */
  method?: string
  /** Every parameter, from the URL and the form body together, decoded. */
  params: Record<string, string>
  /** Whether the request's signature verified with the app's key; null when the gateway refused it before checking. */
  verified: boolean | null
  /** code and sub_code of the answer, or `page` for a cashier redirect. */
  answer: { code: string; sub_code?: string } | 'page'
  /** Why a parameter was refused, where the gateway's own message does not say. */
  note?: string
  atMs: number
}

/** A notification changed on its way out: fields replaced, re-signed or not, or a broken signature. */
export interface Tamper {
  fields: Record<string, string>
  resign: boolean
  badSignature: boolean
}

export const randomDigits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('')
export const randomAlnum = (n: number) => randomBytes(n * 2).toString('base64').replace(/[^0-9A-Za-z]/g, '').padEnd(n, '0').slice(0, n)

export class FakeStore {
  readonly apps = new Map<string, FakeApp>()
  /** By app_id and out_trade_no. */
  readonly trades = new Map<string, Trade>()
  readonly refunds: RefundRecord[] = []
  readonly deliveries: Delivery[] = []
  readonly requests: LoggedRequest[] = []
  /** Alipay's signing key: answers, notifications and return parameters; in certificate mode it is the one in alipayCertificate. */
  readonly alipayKey: KeyPair
  readonly pki: FakePki
  readonly knobs = {
    clockSkewSec: 0,
    notify: defaultNotifyKnob(),
    errors: [] as ForcedError[],
    /** Refuse amounts that are not strings with exactly two decimals (Alipay itself also takes "1" and 1.5). */
    strictAmounts: false,
    /** Refuse a timestamp further than this from the fake's Beijing time; null: only its format is checked. */
    maxTimestampSkewSec: null as number | null,
    /** How long after a refund fastpay.refund.query starts reporting it. */
    refundQueryDelayMs: 0,
    /** Alipay also notifies refunds and closed trades (TRADE_CLOSED, TRADE_SUCCESS with refund_fee); off to see payments only. */
    notifyRefundsAndClosings: true,
    tamperNext: null as Tamper | null,
  }
  /** What each day's bill gets wrong on purpose (fake-kit/statement-knobs.ts). */
  readonly statementKnobs = new StatementKnobBook()
  /** Bill download links by token: the zip as made when the link was given, and when the link dies. */
  readonly billDownloads = new Map<string, { day: string; body: Buffer; expiresAtMs: number }>()
  readonly jobs: JobQueue
  /** Time moved forward by the advance knob, on top of the clock given. */
  private advancedMs = 0
  readonly clock: () => Date

  constructor(
    baseClock: () => Date,
    readonly timeFactor: number,
    /** Where RSA keys come from; tests pass a pool, since generating one takes a quarter second. */
    readonly newKeyPair: () => KeyPair = rsaPair,
    identity?: { alipayKey: KeyPair; rootKey: KeyPair; pki?: { rootBundle: string; alipayCertificate: string } },
  ) {
    this.clock = () => new Date(baseClock().getTime() + this.advancedMs)
    this.jobs = new JobQueue(this.clock)
    this.alipayKey = identity?.alipayKey ?? newKeyPair()
    this.pki = makePki(this.clock(), identity?.rootKey ?? newKeyPair(), this.alipayKey.publicKey, identity?.pki)
  }

  /** Moves the fake's time forward (retries and expiry follow). */
  advance(ms: number) {
    this.advancedMs += ms
  }

  /** The fake's own idea of the time: its clock plus the clock-skew knob. */
  nowMs(): number {
    return this.clock().getTime() + this.knobs.clockSkewSec * 1000
  }

  trade(appId: string, outTradeNo: string): Trade | undefined {
    return this.trades.get(`${appId}:${outTradeNo}`)
  }

  findTrade(pred: (t: Trade) => boolean): Trade | undefined {
    for (const t of this.trades.values()) if (pred(t)) return t
    return undefined
  }

  refundsOf(t: Trade) {
    return this.refunds.filter((r) => r.appId === t.appId && r.outTradeNo === t.outTradeNo)
  }

  /** 28 digits, the date first, like 2026052022001456781234567890. */
  newTradeNo() {
    return `${new Date(this.nowMs() + 8 * 3600_000).toISOString().slice(0, 10).replace(/-/g, '')}22001${randomDigits(15)}`
  }

  newAppId = () => `2021${randomDigits(12)}`
  newSellerId = () => `2088${randomDigits(12)}`
  newQrCode = () => `https://qr.alipay.com/bax0${randomAlnum(20).toLowerCase()}`
}
