/** /c/<session_id>: an open session's payment controls, or only the result of a finished one. */
import type { Branding } from '../../services/merchant-settings.js'
import type { SessionStatus } from '../../domain/session-machine.js'
import { REFUND_BEHAVIORS } from '../../providers/mock/index.js'
import type { WayBack } from '../way-back.js'
import { Layout, type PageContext } from '../views/layout.js'
import { Sentence } from '../../web/views/sentence.js'
import { Amount, AwaitPayment, LocalTime, ProviderMark, Reference, ResultIcon } from '../views/parts.js'

export interface OfferView {
  provider: string
  name: string
}

export interface CheckoutView {
  sessionId: string
  status: SessionStatus
  testMode: boolean
  merchantName: string
  brand?: Branding | null
  description: string | null
  amount: string
  secondsLeft: number
  expiresAt: string
  expiresAtIso: string
  formToken: string
  /** The merchant gave a successUrl: paid sessions offer the way back, through the relay. */
  canReturn: boolean
  /** Failed, canceled and expired sessions: the way back to the merchant (../way-back.ts), if there is one. */
  wayBack: WayBack | null
  recordId: string | null
  /** Paid sessions: what the customer paid in another currency, and the rate (WeChat Pay Global). */
  charged: string | null
  offers: OfferView[]
  /** A provider the customer picked that cannot take payments yet. */
  unavailable: string | null
  /** A provider that could not start the payment just now. */
  failed: string | null
  /** Inside a provider's app, with a configuration that cannot take the browser step (WeChat without an appSecret). */
  inAppUnavailable: { provider: string; app: string } | null
  /** Live, processing: the provider the session is waiting on. */
  waitingOn: string | null
}

const REFUND_LABELS = { succeed: 'test.refund.succeed', pending: 'test.refund.pending', fail: 'test.refund.fail' } as const

/** 3599 → "59:59", 7200 → "2:00:00": the same shape the script keeps counting down. */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const two = (n: number) => String(n).padStart(2, '0')
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`
}

function Summary({ t, v }: PageContext & { v: CheckoutView }) {
  return (
    <>
      <h1 class="merchant">{t('checkout.payTo', { merchant: v.merchantName })}</h1>
      {v.description && <p class="description">{v.description}</p>}
      <Amount label={t('checkout.amountDue')} value={v.amount} />
    </>
  )
}

function Timer({ t, v }: PageContext & { v: CheckoutView }) {
  return (
    <div class="timer">
      <p>
        <span class="timer-label" id="time-left-label">{t('checkout.timeLeft')}</span>{' '}
        <span class="timer-value" role="timer" aria-labelledby="time-left-label" data-seconds-left={String(Math.floor(v.secondsLeft))} data-expired-text={t('timer.expired')}>
          {clockText(v.secondsLeft)}
        </span>
      </p>
      <p class="hint">
        <Sentence template={t('checkout.expiresAt')} name="time" node={<LocalTime iso={v.expiresAtIso} text={v.expiresAt} />} />
      </p>
    </div>
  )
}

function TestControls({ t, v }: PageContext & { v: CheckoutView }) {
  return (
    <div class="controls">
      {v.status === 'processing' && <p class="notice" role="status">{t('checkout.processing')}</p>}
      <form method="post" action={`/c/${v.sessionId}/pay`} class="pay-form">
        <input type="hidden" name="token" value={v.formToken} />
        <fieldset class="choices">
          <legend>{t('test.refundLegend')}</legend>
          {REFUND_BEHAVIORS.map((b) => (
            <label class="choice">
              <input type="radio" name="refundBehavior" value={b} checked={b === 'succeed'} />
              <span>{t(REFUND_LABELS[b])}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" class="button primary">{t('test.pay', { amount: v.amount })}</button>
      </form>
      <form method="post" action={`/c/${v.sessionId}/fail`}>
        <input type="hidden" name="token" value={v.formToken} />
        <button type="submit" class="button secondary">{t('test.fail')}</button>
      </form>
    </div>
  )
}

function LiveControls({ t, v }: PageContext & { v: CheckoutView }) {
  return (
    <div class="controls">
      {v.waitingOn && <AwaitPayment sessionId={v.sessionId} text={t('live.waiting', { provider: v.waitingOn })} />}
      {v.inAppUnavailable && <p class="notice warning" role="alert">{t('inApp.unavailable', v.inAppUnavailable)}</p>}
      {v.unavailable && <p class="notice warning" role="alert">{t('live.unavailable', { provider: v.unavailable })}</p>}
      {v.failed && <p class="notice warning" role="alert">{t('live.failed', { provider: v.failed })}</p>}
      {v.offers.length === 0 ? (
        <p class="notice warning">{t('live.none', { merchant: v.merchantName })}</p>
      ) : (
        <form method="post" action={`/c/${v.sessionId}/choose`} class="offers">
          <input type="hidden" name="token" value={v.formToken} />
          <h2>{t('live.choose')}</h2>
          {v.offers.map((o) => (
            <button type="submit" name="provider" value={o.provider} class="button provider">
              <ProviderMark provider={o.provider} />
              <span>{t('live.payWith', { provider: o.name })}</span>
            </button>
          ))}
        </form>
      )}
    </div>
  )
}

function OpenCheckout(p: PageContext & { v: CheckoutView }) {
  const { t, v } = p
  return (
    <>
      <Summary {...p} />
      <Timer {...p} />
      {v.testMode ? <TestControls {...p} /> : <LiveControls {...p} />}
      <form method="post" action={`/c/${v.sessionId}/cancel`} class="cancel-form">
        <input type="hidden" name="token" value={v.formToken} />
        <button type="submit" class="button quiet">{t('checkout.cancel')}</button>
      </form>
      <Reference label={t('checkout.reference')} value={v.sessionId} />
    </>
  )
}

/** Title, text and icon of each finished state: only a failure is shown as an error. */
const RESULT = {
  paid: ['result.paid.title', 'result.paid.body', 'check', 'ok'],
  refunded: ['result.refunded.title', 'result.refunded.body', 'undo', 'neutral'],
  failed: ['result.failed.title', 'result.failed.body', 'cross', 'stop'],
  canceled: ['result.canceled.title', 'result.canceled.body', 'cross', 'neutral'],
  expired: ['result.expired.title', 'result.expired.body', 'clock', 'neutral'],
} as const

/** Single use (docs/integrate.md#session-and-record-states): a finished session shows its result and nothing that could start a payment. */
function Result(p: PageContext & { v: CheckoutView }) {
  const { t, v } = p
  const [title, body, icon, tone] = RESULT[v.status as keyof typeof RESULT]
  return (
    <section class={`result result-${v.status}`} aria-labelledby="result-title">
      <ResultIcon icon={icon} tone={tone} />
      <h1 id="result-title">{t(title)}</h1>
      <p>{t(body, { merchant: v.merchantName })}</p>
      <Amount label={t('receipt.amount')} value={v.amount} />
      {v.charged && <p class="charged">{t('receipt.charged')}: {v.charged}</p>}
      {v.description && <p class="description">{v.description}</p>}
      {v.recordId ? (
        <div class="actions">
          <a class="button primary" href={`/r/${v.recordId}`}>{t('result.viewReceipt')}</a>
          {v.canReturn && <a class="button secondary" href={`/c/${v.sessionId}/done`}>{t('result.return', { merchant: v.merchantName })}</a>}
        </div>
      ) : v.wayBack && (
        <div class="actions">
          <a class="button primary" href={v.wayBack.href}>{t(v.wayBack.kind === 'contact' ? 'result.contact' : 'result.return', { merchant: v.merchantName })}</a>
        </div>
      )}
      <Reference label={t('checkout.reference')} value={v.sessionId} />
    </section>
  )
}

export function CheckoutPage(p: PageContext & { v: CheckoutView }) {
  const { t, v } = p
  const open = v.status === 'pending' || v.status === 'processing'
  return (
    <Layout {...p} title={t('checkout.pageTitle', { merchant: v.merchantName })} testMode={v.testMode} brand={v.brand} testButtons={open}>
      {open ? <OpenCheckout {...p} /> : <Result {...p} />}
    </Layout>
  )
}
