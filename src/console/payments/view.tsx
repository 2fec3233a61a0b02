import { SESSION_STATUSES } from '../../domain/session-machine.js'
import { providerName } from '../../providers/index.js'
import type { DeliverySummary } from '../../services/activity.js'
import type { SecondPayment } from '../../services/discrepancies.js'
import type { ConsoleKey } from '../i18n/index.js'
import { Sentence } from '../../web/views/sentence.js'
import { money, when } from '../format.js'
import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'
import type { SessionEmail } from '../../services/emails.js'
import { EmailTimeline } from './emails-view.js'
import { Disputes, type DisputeItem } from './disputes-view.js'
import type { ListQuery } from './filters.js'

interface SessionItem {
  id: string
  status: string
  amount: number
  currency: string
  description: string | null
  metadata: Record<string, string>
  createdAt: string
  expiresAt: string
  mode: string
  chosenProvider: string | null
  record?: { id: string; provider: string; providerRef: string; amount: number; refundedAmount: number; status: string; paidAt: string }
}

interface RecordItem {
  id: string
  provider: string
  providerRef: string
  amount: number
  refundedAmount: number
  currency: string
  status: string
  paidAt: string
  refunds: { id: string; amount: number; status: string; reason: string | null; createdAt: string }[]
}

interface EventItem {
  id: string
  type: string
  createdAt: Date
  deliveries: DeliverySummary[]
}

const tone = (status: string) =>
  ['paid', 'succeeded', 'delivered'].includes(status) ? 'badge-ok'
    : ['failed', 'canceled', 'expired'].includes(status) ? 'badge-stop'
    : ['pending', 'processing', 'refunding'].includes(status) ? 'badge-wait' : ''

function StatusBadge({ c, kind, status }: { c: ConsoleContext; kind: 'session' | 'record' | 'refund' | 'delivery'; status: string }) {
  const key = `${kind}.${status}` as ConsoleKey
  let text = status
  try {
    text = c.t(key)
  } catch {}
  return <span class={`badge ${tone(status)}`}>{text ?? status}</span>
}

/**
 * Why the list is empty, and so what to do next: clear the filters; in test mode, make a payment
 * with a test key; in live mode, connect a provider first, or make one with a live key.
 */
export type EmptyList = 'filtered' | 'test' | 'connect' | 'live'

const EMPTY = {
  filtered: ['payments.emptyFiltered', 'payments.emptyFilteredLink', ''],
  test: ['payments.emptyTest', 'payments.emptyTestLink', '/keys'],
  connect: ['payments.emptyConnect', 'payments.emptyConnectLink', '/providers'],
  live: ['payments.emptyLive', 'payments.emptyLiveLink', '/keys'],
} as const

function EmptyPayments({ c, why }: { c: ConsoleContext; why: EmptyList }) {
  const [sentence, link, page] = EMPTY[why]
  return <p class="empty"><Sentence template={c.t(sentence)} name="link" node={<a href={`${base(c.mode)}${page || '/payments'}`}>{c.t(link)}</a>} /></p>
}

export function PaymentsPage({ c, sessions, hasMore, query, paged, error, empty }: { c: ConsoleContext; sessions: SessionItem[]; hasMore: boolean; query: ListQuery; paged: boolean; error: string | null; empty: EmptyList | null }) {
  const { t, locale } = c
  const listUrl = `${base(c.mode)}/payments`
  const keep = new URLSearchParams(Object.entries(query).filter(([, v]) => v))
  const older = sessions.length ? `${listUrl}?${new URLSearchParams([...keep, ['after', sessions[sessions.length - 1].id]])}` : null
  return (
    <ConsoleLayout c={c} title={t('payments.pageTitle')} section="payments">
      <h1>{t('payments.pageTitle')}</h1>
      {error && <Notice kind="error">{error}</Notice>}
      <form method="get" action={listUrl} class="filters panel" role="search">
        <div class="field">
          <label for="status">{t('payments.status')}</label>
          <select id="status" name="status">
            <option value="">{t('payments.any')}</option>
            {SESSION_STATUSES.map((s) => <option value={s} selected={query.status === s}>{t(`session.${s}`)}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="from">{t('payments.from')}</label>
          <input id="from" name="from" type="date" value={query.from} />
        </div>
        <div class="field">
          <label for="to">{t('payments.to')}</label>
          <input id="to" name="to" type="date" value={query.to} />
        </div>
        <div class="field wide">
          <label for="q">{t('payments.search')}</label>
          <input id="q" name="q" type="search" value={query.q} placeholder={t('payments.searchHelp')} />
        </div>
        <div class="actions wide">
          <button type="submit" class="button">{t('payments.filter')}</button>
          {keep.size > 0 && <a href={listUrl}>{t('payments.clear')}</a>}
        </div>
      </form>
      {sessions.length === 0 ? (empty ? <EmptyPayments c={c} why={empty} /> : <p>{t('payments.none')}</p>) : (
        <table class="table">
          <thead><tr><th class="num">{t('payments.amount')}</th><th>{t('payments.status')}</th><th>{t('payments.description')}</th><th>{t('payments.id')}</th><th>{t('payments.created')}</th></tr></thead>
          <tbody>
            {sessions.map((s) => (
              <tr data-session={s.id}>
                <td data-label={t('payments.amount')} class="num"><a href={`${listUrl}/${s.id}`}><strong>{money(s.amount, s.currency, locale)}</strong></a></td>
                <td data-label={t('payments.status')}>
                  <StatusBadge c={c} kind="session" status={s.status} />
                  {s.record && s.record.status !== 'paid' && s.record.status !== s.status && <> <StatusBadge c={c} kind="record" status={s.record.status} /></>}
                </td>
                <td data-label={t('payments.description')}>{s.description ?? ''}</td>
                <td data-label={t('payments.id')}><a class="mono" href={`${listUrl}/${s.id}`}>{s.id}</a></td>
                <td data-label={t('payments.created')}>{when(s.createdAt, c)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="pager">
        {paged && <a href={`${listUrl}${keep.size ? `?${keep}` : ''}`}>{t('common.newest')}</a>}
        {hasMore && older && <a href={older} rel="next">{t('common.older')}</a>}
      </div>
    </ConsoleLayout>
  )
}

/** Second payments on a session already paid: kept, not refunded by Till; the merchant decides. */
function PaidTwice({ c, payments }: { c: ConsoleContext; payments: SecondPayment[] }) {
  const { t, locale } = c
  return (
    <Notice kind="warn">
      <strong>{t('payments.paidTwiceTitle')}</strong>
      <ul>
        {payments.map((p) => (
          <li>{t('payments.paidTwiceLine', {
            amount: p.amount !== null && p.currency ? money(p.amount, p.currency, locale) : t('common.none'),
            provider: providerName(p.provider, locale),
            ref: p.providerRef ?? t('common.none'),
            when: when(p.at, c) ?? '',
          })}</li>
        ))}
      </ul>
      {t('payments.paidTwiceAdvice')}
    </Notice>
  )
}

export function PaymentPage({ c, session, record, disputes, events, emails, paidTwice, idempotencyKey, error, refundId, amount, reason }: {
  c: ConsoleContext; session: SessionItem; record: RecordItem | null; disputes: DisputeItem[]; events: EventItem[]; emails: SessionEmail[]; paidTwice: SecondPayment[]
  idempotencyKey: string; error: string | null; refundId: string | null; amount: string; reason: string
}) {
  const { t, locale } = c
  const here = `${base(c.mode)}/payments/${session.id}`
  const refundable = record ? record.amount - record.refundedAmount - record.refunds.filter((f) => f.status === 'pending').reduce((n, f) => n + f.amount, 0) : 0
  const done = refundId && record ? record.refunds.find((f) => f.id === refundId) : null
  const provider = record?.provider ?? session.chosenProvider
  return (
    <ConsoleLayout c={c} title={`${money(session.amount, session.currency, locale)} · ${session.id}`} section="payments">
      <p><a href={`${base(c.mode)}/payments`}>{t('common.back')}</a></p>
      <p class="amount-big">{money(session.amount, session.currency, locale)}</p>
      <h1 class="mono">{session.id}</h1>
      {done && <Notice kind="ok">{t('payments.refundDone', { id: done.id, amount: money(done.amount, record!.currency, locale), status: t(`refund.${done.status}` as ConsoleKey) })}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {paidTwice.length > 0 && <PaidTwice c={c} payments={paidTwice} />}
      <div class="grid-2">
        <section class="panel">
          <dl class="facts">
            <dt>{t('payments.status')}</dt><dd><StatusBadge c={c} kind="session" status={session.status} /></dd>
            <dt>{t('payments.provider')}</dt><dd>{provider ? providerName(provider, locale) : t('common.none')}</dd>
            {session.description && <><dt>{t('payments.description')}</dt><dd>{session.description}</dd></>}
            <dt>{t('payments.created')}</dt><dd>{when(session.createdAt, c)}</dd>
            <dt>{t('payments.expires')}</dt><dd>{when(session.expiresAt, c)}</dd>
            <dt>{t('payments.metadata')}</dt>
            <dd>{Object.keys(session.metadata).length === 0 ? t('common.none') : Object.entries(session.metadata).map(([k, v]) => <div class="mono">{k}: {v}</div>)}</dd>
          </dl>
          {record && (
            <>
              <h2>{t('payments.record')}</h2>
              <dl class="facts">
                <dt>{t('payments.recordId')}</dt><dd class="mono">{record.id}</dd>
                <dt>{t('payments.status')}</dt><dd><StatusBadge c={c} kind="record" status={record.status} /></dd>
                <dt>{t('payments.providerRef')}</dt><dd class="mono">{record.providerRef}</dd>
                <dt>{t('payments.paidAt')}</dt><dd>{when(record.paidAt, c)}</dd>
                <dt>{t('payments.refunded')}</dt><dd>{money(record.refundedAmount, record.currency, locale)}</dd>
              </dl>
              <h2>{t('payments.refunds')}</h2>
              {record.refunds.length === 0 ? <p>{t('payments.noRefunds')}</p> : (
                <table class="table">
                  <thead><tr><th>{t('payments.refunds')}</th><th class="num">{t('payments.amount')}</th><th>{t('payments.status')}</th><th>{t('payments.reason')}</th><th>{t('payments.created')}</th></tr></thead>
                  <tbody>
                    {record.refunds.map((f) => (
                      <tr data-refund={f.id}>
                        <td data-label={t('payments.refunds')} class="mono">{f.id}</td>
                        <td data-label={t('payments.amount')} class="num">{money(f.amount, record.currency, locale)}</td>
                        <td data-label={t('payments.status')}><StatusBadge c={c} kind="refund" status={f.status} /></td>
                        <td data-label={t('payments.reason')}>{f.reason ?? ''}</td>
                        <td data-label={t('payments.created')}>{when(f.createdAt, c)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <Disputes c={c} provider={record.provider} disputes={disputes} />
            </>
          )}
        </section>
        <section>
          {record && (
            <div class="panel">
              <h2 id="refund">{t('payments.refund')}</h2>
              {refundable <= 0 ? <p>{t('payments.notRefundable')}</p> : (
                <PostForm c={c} action={`${here}/refund`}>
                  <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
                  <div class="field">
                    <label for="amount">{t('payments.refundAmount', { currency: record.currency })}</label>
                    <input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" value={amount} />
                    <p class="help">{t('payments.refundAmountHelp', { amount: money(refundable, record.currency, locale) })}</p>
                  </div>
                  <div class="field">
                    <label for="reason">{t('payments.refundReason')}</label>
                    <input id="reason" name="reason" type="text" maxlength={80} value={reason} />
                  </div>
                  <button type="submit" class="button button-danger">{t('payments.refundSubmit')}</button>
                </PostForm>
              )}
            </div>
          )}
          <div class="panel">
            <h2>{t('payments.timeline')}</h2>
            {events.length === 0 ? <p>{t('payments.noEvents')}</p> : (
              <ul class="timeline">
                {events.map((e) => (
                  <li data-event={e.id}>
                    <strong><code>{e.type}</code></strong> <span class="muted">{when(e.createdAt, c)}</span>
                    <ul class="attempts">
                      {e.deliveries.map((d) => (
                        <li>{d.url} · <StatusBadge c={c} kind="delivery" status={d.status} />{d.attempts > 0 && ` · ${d.attempts}× · ${d.last?.statusCode ?? d.last?.error ?? t('webhooks.noResponse')}`}</li>
                      ))}
                    </ul>
                  </li>
                ))}
              </ul>
            )}
            <EmailTimeline c={c} emails={emails} />
          </div>
        </section>
      </div>
    </ConsoleLayout>
  )
}
