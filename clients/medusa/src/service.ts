/**
 * Till as a Medusa v2 payment provider. The storefront sends the customer to Till's hosted page
 * (`data.url`); Till captures at once, so a paid session is `captured` for Medusa. Nothing the
 * customer's browser says is trusted: every status comes from reading the session back from Till,
 * and webhooks count only when their signature over the raw body verifies.
 */
import type {
  AuthorizePaymentInput, AuthorizePaymentOutput, BigNumberInput, CancelPaymentInput, CancelPaymentOutput, CapturePaymentInput,
  CapturePaymentOutput, DeletePaymentInput, DeletePaymentOutput, GetPaymentStatusInput, GetPaymentStatusOutput, InitiatePaymentInput,
  InitiatePaymentOutput, ProviderWebhookPayload, RefundPaymentInput, RefundPaymentOutput, RetrievePaymentInput, RetrievePaymentOutput,
  UpdatePaymentInput, UpdatePaymentOutput, WebhookActionResult,
} from '@medusajs/framework/types'
import { AbstractPaymentProvider, MathBN, MedusaError } from '@medusajs/framework/utils'
import { Till, TillConnectionError, TillError, type Currency, type Session, type SessionStatus, type SignatureHeader } from '../../js/src/index.js'
import { fromMinorUnits, tillCurrency, toMinorUnits } from './amounts.js'
import { parseOptions, type TillOptions } from './options.js'
import { medusaStatus, webhookAction } from './status.js'

/** The metadata key on every Till session this provider opens: how a webhook finds Medusa's payment session. */
export const SESSION_METADATA_KEY = 'medusa_payment_session_id'

/**
 * What Medusa stores in the payment session's and payment's `data`. The storefront can read it
 * (Medusa's rule): it holds no secret, only where to send the customer and what Till last said.
 */
export interface TillPaymentData {
  /** Medusa's payment session (payses_…), written into the Till session's metadata. */
  session_id?: string
  till_session_id: string
  /** Till's hosted checkout page: redirect the customer here. */
  url: string
  /** In minor units, as Till holds it (1999 USD is $19.99; 1500 JPY is ¥1,500). */
  amount: number
  currency: Currency
  /** The Till session's status when last read. */
  status: SessionStatus
  /** Where Till returns the customer (the storefront's `return_url`, or the `returnUrl` option). */
  return_url?: string
  /** The Till payment record, once paid: refunds go to it. */
  record_id?: string
  /** Minor units refunded so far, when last read. */
  refunded_amount?: number
}

const PAID: SessionStatus[] = ['paid', 'refunded']
/** A session the customer may still pay: canceling it at Till closes it. */
const OPEN: SessionStatus[] = ['pending', 'processing']
/** A session the customer may still pay, or is paying now: its amount cannot be replaced. */
const IN_FLIGHT: SessionStatus[] = ['processing', ...PAID]

export class TillPaymentProvider extends AbstractPaymentProvider<TillOptions> {
  static identifier = 'till'

  static validateOptions(options: Record<string, unknown>): void {
    parseOptions(options)
  }

  readonly #options: TillOptions
  readonly #till: Till
  readonly #mode: 'test' | 'live'

  constructor(cradle: Record<string, unknown>, options: TillOptions) {
    super(cradle, options)
    this.#options = parseOptions(options)
    this.#till = new Till({ apiKey: options.apiKey, baseUrl: options.baseUrl, timeoutMs: options.timeoutMs ?? 10_000 })
    this.#mode = options.apiKey.startsWith('sk_live_') ? 'live' : 'test'
  }

  async initiatePayment({ amount, currency_code, data, context }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const returnUrl = typeof data?.return_url === 'string' ? data.return_url : this.#options.returnUrl
    const sessionId = typeof data?.session_id === 'string' ? data.session_id : undefined
    const opened = await this.#open({ amount, currencyCode: currency_code, sessionId, returnUrl }, context?.idempotency_key)
    return { id: opened.till_session_id, status: medusaStatus(opened.status), data: { ...opened } }
  }

  /** Captured when Till says the session is paid, and only then. */
  async authorizePayment({ data }: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    return this.getPaymentStatus({ data })
  }

  async getPaymentStatus({ data }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const known = readData(data)
    const session = await this.#read(known)
    return { status: medusaStatus(session.status), data: { ...withSession(known, session) } }
  }

  async retrievePayment({ data }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const known = readData(data)
    return { data: { ...withSession(known, await this.#read(known)) } }
  }

  /** Till captured when the customer paid: this only confirms it (Medusa does not call it for a payment authorized as captured). */
  async capturePayment({ data }: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const known = readData(data)
    const session = await this.#read(known)
    if (!PAID.includes(session.status)) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Till session ${known.till_session_id} is ${session.status}, not paid: there is nothing to capture`)
    }
    return { data: { ...withSession(known, session) } }
  }

  /**
   * Medusa cancels a payment when it cannot keep it: an order that failed after the payment was
   * authorized, a payment it could not record. An open session is canceled at Till (its order at
   * the provider closed first), so nobody can pay it any more. Till captured a paid one at once, so
   * the void is a refund of what remains (once per session, whatever the retries), also when the
   * customer paid just before the cancel.
   */
  async cancelPayment({ data }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    if (typeof data?.till_session_id !== 'string') return { data: data ?? {} } // nothing was opened at Till
    const known = readData(data)
    const session = await this.#closeIfOpen(known)
    if (session.status !== 'paid') return { data: { ...withSession(known, session) } } // refunded already, or never paid
    const refunded = await this.#refund({ ...known, status: session.status }, session.record.id, undefined, `medusa-cancel:${known.till_session_id}`)
    return { data: { ...refunded } }
  }

  /**
   * Medusa deletes a payment session when the cart changes or another session replaces it. A
   * session the customer has paid (even just before the cancel) is refused: the payment must not be dropped, so the cart keeps it
   * and can be completed with it.
   */
  async deletePayment({ data }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    if (typeof data?.till_session_id !== 'string') return { data: data ?? {} } // nothing was opened at Till
    const known = readData(data)
    // An unpaid session is canceled at Till: an old tab can no longer pay a cart that changed.
    const session = await this.#closeIfOpen(known)
    if (PAID.includes(session.status)) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED,
        `Till session ${known.till_session_id} is ${session.status} (record ${session.record?.id}): the customer paid this cart, complete it instead of changing its payment`)
    }
    return { data: { ...withSession(known, session) } }
  }

  /** A Till session's amount is fixed: another amount or currency opens a new session. */
  async updatePayment({ data, amount, currency_code }: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const known = readData(data)
    const currency = this.#currency(currency_code)
    const session = await this.#read(known)
    if (toMinor(amount, currency) === known.amount && currency === known.currency) {
      return { status: medusaStatus(session.status), data: { ...withSession(known, session) } }
    }
    if (IN_FLIGHT.includes(session.status)) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED,
        `Till session ${known.till_session_id} is ${session.status}: the customer has paid or is paying its amount, which cannot change now`)
    }
    // The same update retried opens the same new session.
    const key = `medusa-update:${known.till_session_id}:${toMinor(amount, currency)}:${currency}`
    const opened = await this.#open({ amount, currencyCode: currency, sessionId: known.session_id, returnUrl: known.return_url }, key)
    return { status: medusaStatus(opened.status), data: { ...opened } }
  }

  /** Refunds the Till record; Medusa's refund id is the Idempotency-Key, so a retried refund never refunds twice. */
  async refundPayment({ data, amount, context }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const known = readData(data)
    const recordId = known.record_id ?? (await this.#read(known)).record?.id
    if (!recordId) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Till session ${known.till_session_id} is not paid: there is nothing to refund`)
    const refunded = await this.#refund(known, recordId, toMinor(amount, known.currency), context?.idempotency_key)
    return { data: { ...refunded } }
  }

  /**
   * Medusa hands over Till's delivery to /hooks/payment/till_<id>: the signature is checked over the
   * raw body in constant time, and createdAt against the tolerance, before anything is read.
   */
  async getWebhookActionAndData({ rawData, headers }: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    let event: ReturnType<typeof Till.constructEvent>
    try {
      event = Till.constructEvent(rawData, headers['x-service-signature'] as SignatureHeader, this.#options.webhookSecret, {
        toleranceSeconds: this.#options.webhookToleranceSeconds,
      })
    } catch (e) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `Till webhook not accepted: ${(e as Error).message}`)
    }
    const action = webhookAction(event.type)
    // Events that name no session (reconciliation's) are none of Medusa's.
    if (!('metadata' in event.data)) return { action: 'not_supported' }
    // A session of another integration on the same Till merchant, or of the other mode, is none of Medusa's.
    const sessionId = event.data.metadata?.[SESSION_METADATA_KEY]
    if (action === 'not_supported' || event.mode !== this.#mode || typeof sessionId !== 'string') return { action: 'not_supported' }
    return { action, data: { session_id: sessionId, amount: fromMinorUnits(event.data.amount, tillCurrency(event.data.currency)) } }
  }

  async #open(p: { amount: BigNumberInput; currencyCode: string; sessionId?: string; returnUrl?: string }, idempotencyKey?: string): Promise<TillPaymentData> {
    const currency = this.#currency(p.currencyCode)
    const { description, sessionTtlSeconds } = this.#options
    const created = await this.#call('opening a checkout session', () => this.#till.createCheckout({
      amount: toMinor(p.amount, currency),
      currency,
      metadata: p.sessionId ? { [SESSION_METADATA_KEY]: p.sessionId } : {},
      ...(description !== undefined && { description }),
      ...(p.returnUrl !== undefined && { successUrl: p.returnUrl }),
      ...(sessionTtlSeconds !== undefined && { expiresInSeconds: sessionTtlSeconds }),
    }, idempotencyKey ? { idempotencyKey } : undefined))
    return {
      ...(p.sessionId !== undefined && { session_id: p.sessionId }),
      till_session_id: created.id,
      url: created.url,
      amount: created.amount,
      currency,
      status: created.status,
      ...(p.returnUrl !== undefined && { return_url: p.returnUrl }),
    }
  }

  /** Refunds `amount` (everything left when undefined) of the record; a refund Till's provider refused throws, nothing having moved. */
  async #refund(known: TillPaymentData, recordId: string, amount: number | undefined, idempotencyKey: string | undefined): Promise<TillPaymentData> {
    const result = await this.#call('refunding', () =>
      this.#till.refund({ recordId, ...(amount !== undefined && { amount }) }, idempotencyKey ? { idempotencyKey } : undefined))
    if (result.refund.status === 'failed') {
      throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `Till's payment provider refused refund ${result.refund.id} of record ${recordId}; nothing was refunded`)
    }
    return { ...known, record_id: recordId, refunded_amount: result.refundedAmount, status: result.status === 'refunded' ? 'refunded' : known.status }
  }

  /**
   * The session, canceled at Till first when it is still open (POST /api/v1/sessions/{id}/cancel).
   * Till refuses a session no longer open (paid meanwhile, or canceled by an earlier try): it is then
   * read back as it is. No Idempotency-Key of its own: a replayed "canceled" could hide a payment.
   */
  async #closeIfOpen(known: TillPaymentData): Promise<Session> {
    const session = await this.#read(known)
    if (!OPEN.includes(session.status)) return session
    try {
      return await this.#till.sessions.cancel(session.id)
    } catch (e) {
      if (e instanceof TillError && e.code === 'session_terminal') return this.#read(known)
      return this.#call('canceling a checkout session', () => Promise.reject(e))
    }
  }

  /** The session from Till, refused when it is not the one this payment opened (amount, currency, Medusa session). */
  async #read(known: TillPaymentData): Promise<Session> {
    const session = await this.#call('reading a checkout session', () => this.#till.getSession(known.till_session_id))
    const owner = session.metadata?.[SESSION_METADATA_KEY]
    if (session.amount !== known.amount || session.currency !== known.currency || (known.session_id !== undefined && owner !== known.session_id)) {
      throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE,
        `Till session ${session.id} (${session.amount} ${session.currency}, for ${owner ?? 'no Medusa session'}) is not the one this payment opened ` +
        `(${known.amount} ${known.currency}, for ${known.session_id}): refusing to use it`)
    }
    return session
  }

  #currency(code: string): Currency {
    try {
      return tillCurrency(code)
    } catch (e) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, (e as Error).message)
    }
  }

  /** Till's answers as Medusa errors: 400 stays invalid data, no answer says the outcome is unknown. */
  async #call<T>(doing: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (e) {
      if (e instanceof TillConnectionError) {
        throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `Till did not answer while ${doing} (${e.message}); the outcome is unknown: check in Till before retrying`)
      }
      if (e instanceof TillError) {
        const type = e.status === 400 ? MedusaError.Types.INVALID_DATA : e.status === 404 ? MedusaError.Types.NOT_FOUND : MedusaError.Types.UNEXPECTED_STATE
        throw new MedusaError(type, `Till answered ${e.status} while ${doing}: ${e.message}${e.code ? ` (${e.code})` : ''}`)
      }
      throw e
    }
  }
}

/** Medusa's amount (a number, a decimal string or a BigNumber) in Till's minor units. */
function toMinor(amount: BigNumberInput, currency: Currency): number {
  const value = MathBN.convert(amount)
  if (!value.isFinite() || value.isNegative()) throw new MedusaError(MedusaError.Types.INVALID_DATA, `not an amount: ${String(value)}`)
  return toMinorUnits(value.toFixed(), currency)
}

/** The `data` Medusa kept for this payment, or an error when it was not made by this provider. */
function readData(data: Record<string, unknown> | undefined): TillPaymentData {
  const d = (data ?? {}) as Partial<TillPaymentData>
  if (typeof d.till_session_id !== 'string' || !Number.isSafeInteger(d.amount) || typeof d.currency !== 'string') {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, 'this payment has no Till session in its data: it was not opened by the Till provider')
  }
  return d as TillPaymentData
}

function withSession(known: TillPaymentData, session: Session): TillPaymentData {
  return {
    ...known,
    status: session.status,
    ...(session.record && { record_id: session.record.id, refunded_amount: session.record.refundedAmount }),
  }
}
