import { EVENT_TYPES } from '../../domain/events.js'
import { percent, when } from '../format.js'
import { base, ConsoleLayout, Notice, PostForm, ShownOnce, type ConsoleContext } from '../views/layout.js'
import type { WebhookNotice } from './route.js'

interface EndpointItem {
  id: string
  url: string
  mode: string
  events: string[] | null
  enabled: boolean
  previousSecretExpiresAt: string | null
  createdAt: string
  health: {
    recentAttempts: number
    recentSuccessRate: number | null
    lastSuccessAt: string | null
    lastFailureAt: string | null
    lastFailureReason: string | null
    failingSince: string | null
    failuresSinceSuccess: number
    disabledForFailingAt: string | null
  }
}

interface DeliveryItem {
  id: number
  eventId: string
  eventType: string
  status: 'pending' | 'delivered' | 'failed' | 'canceled'
  nextAttemptAt: Date | null
  attemptLog: { attemptedAt: Date; statusCode: number | null; latencyMs: number; responseBody: string | null; error: string | null }[]
}

const NOTICE_KEYS = {
  saved: 'webhooks.saved', enabled: 'webhooks.enabledAgain', resent: 'webhooks.resent', deleted: 'webhooks.deleted', test: 'webhooks.testSent', 'secrets-expired': 'webhooks.secretsExpired',
} as const

/** Enabled, disabled, or disabled by Till for failing. */
function StateBadge({ c, e }: { c: ConsoleContext; e: EndpointItem }) {
  const label = e.enabled ? 'webhooks.enabled' : e.health.disabledForFailingAt ? 'webhooks.disabledFailing' : 'webhooks.disabled'
  return <span class={`badge ${e.enabled ? 'badge-ok' : 'badge-stop'}`}>{c.t(label)}</span>
}

/** "75 % of 4 attempts in 24 h". */
const recent = (c: ConsoleContext, h: EndpointItem['health']) =>
  h.recentSuccessRate === null ? c.t('webhooks.noRecent') : c.t('webhooks.recent', { rate: percent(h.recentSuccessRate, c.locale), n: String(h.recentAttempts) })

function Health({ c, e }: { c: ConsoleContext; e: EndpointItem }) {
  const { t, locale } = c
  const h = e.health
  return (
    <dl class="facts">
      <dt>{t('webhooks.successRate')}</dt><dd>{recent(c, h)}</dd>
      <dt>{t('webhooks.lastSuccess')}</dt><dd>{when(h.lastSuccessAt, c) ?? t('webhooks.never')}</dd>
      <dt>{t('webhooks.lastFailure')}</dt><dd>{h.lastFailureAt ? `${when(h.lastFailureAt, c)} · ${h.lastFailureReason ?? ''}` : t('webhooks.never')}</dd>
      {h.failingSince && <><dt>{t('webhooks.failingSince')}</dt><dd>{t('webhooks.failingCount', { time: when(h.failingSince, c)!, n: String(h.failuresSinceSuccess) })}</dd></>}
    </dl>
  )
}

function EventChoices({ c, selected }: { c: ConsoleContext; selected: string[] | null }) {
  const { t } = c
  return (
    <fieldset>
      <legend>{t('webhooks.events')}</legend>
      <label class="check"><input type="radio" name="filter" value="all" checked={selected === null} /> {t('webhooks.allEvents')}</label>
      <label class="check"><input type="radio" name="filter" value="some" checked={selected !== null} /> {t('webhooks.someEvents')}</label>
      {EVENT_TYPES.map((type) => (
        <label class="check"><input type="checkbox" name="events" value={type} checked={selected?.includes(type) ?? false} /> <code>{type}</code></label>
      ))}
    </fieldset>
  )
}

export function WebhooksPage({ c, endpoints, error, url, notice }: { c: ConsoleContext; endpoints: EndpointItem[]; error: string | null; url: string; notice: WebhookNotice | null }) {
  const { t } = c
  return (
    <ConsoleLayout c={c} title={t('webhooks.pageTitle')} section="webhooks">
      <h1>{t('webhooks.pageTitle')}</h1>
      <p class="muted">{t('webhooks.intro', { mode: t(`mode.${c.mode}`) })}</p>
      {notice && <Notice kind="ok">{t(NOTICE_KEYS[notice], { type: '' })}</Notice>}
      {endpoints.length === 0 ? <p>{t('webhooks.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('webhooks.url')}</th><th>{t('webhooks.events')}</th><th>{t('webhooks.state')}</th><th>{t('webhooks.health')}</th></tr></thead>
          <tbody>
            {endpoints.map((e) => (
              <tr>
                <td data-label={t('webhooks.url')}><a href={`${base(c.mode)}/webhooks/${e.id}`}>{e.url}</a></td>
                <td data-label={t('webhooks.events')}>{e.events ? e.events.map((x) => <code>{x} </code>) : t('webhooks.allEvents')}</td>
                <td data-label={t('webhooks.state')}><StateBadge c={c} e={e} /></td>
                <td data-label={t('webhooks.health')}>
                  {recent(c, e.health)}
                  {e.health.lastFailureAt && <div class="help">{t('webhooks.lastFailure')}: {when(e.health.lastFailureAt, c)} · {e.health.lastFailureReason}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2 id="add">{t('webhooks.add')}</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <PostForm c={c} action={`${base(c.mode)}/webhooks`} class="panel">
        <div class="field">
          <label for="url">{t('webhooks.url')}</label>
          <input id="url" name="url" type="url" required value={url} placeholder="https://example.com/webhooks/till" />
          <p class="help">{t('webhooks.urlHelp')}</p>
        </div>
        <EventChoices c={c} selected={null} />
        <button type="submit" class="button">{t('webhooks.add')}</button>
      </PostForm>
    </ConsoleLayout>
  )
}

const deliveryTone = { delivered: 'badge-ok', failed: 'badge-stop', pending: 'badge-wait', canceled: '' } as const

export function EndpointPage({ c, endpoint, deliveries, secret, error, notice, testType }: {
  c: ConsoleContext; endpoint: EndpointItem; deliveries: DeliveryItem[]; secret: string | null; error: string | null; notice: WebhookNotice | null; testType: string | null
}) {
  const { t, locale } = c
  const here = `${base(c.mode)}/webhooks/${endpoint.id}`
  return (
    <ConsoleLayout c={c} title={endpoint.url} section="webhooks">
      <h1>{endpoint.url}</h1>
      {secret && <ShownOnce c={c} title={t('webhooks.secretTitle')} note={t('webhooks.secretNote')} value={secret} />}
      {notice && <Notice kind="ok">{t(NOTICE_KEYS[notice], { type: testType && (EVENT_TYPES as readonly string[]).includes(testType) ? testType : '' })}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {!endpoint.enabled && endpoint.health.disabledForFailingAt && (
        <Notice kind="error">{t('webhooks.disabledForFailing', {
          time: when(endpoint.health.disabledForFailingAt, c)!,
          since: when(endpoint.health.failingSince, c) ?? '',
          n: String(endpoint.health.failuresSinceSuccess),
          reason: endpoint.health.lastFailureReason ?? '',
        })}</Notice>
      )}
      <p>
        <StateBadge c={c} e={endpoint} />{' '}
        <span class="muted">{endpoint.id}</span>
      </p>
      <h2>{t('webhooks.health')}</h2>
      <Health c={c} e={endpoint} />
      <div class="actions">
        <PostForm c={c} action={`${here}/test`} class="inline">
          <label class="sr-only" for="test-type">{t('webhooks.testType')}</label>
          <select id="test-type" name="type" aria-label={t('webhooks.testType')}>
            {EVENT_TYPES.map((type) => <option value={type}>{type}</option>)}
          </select>{' '}
          <button type="submit" class="button button-small">{t('webhooks.test')}</button>
        </PostForm>
        <PostForm c={c} action={`${here}/rotate`} class="inline" confirm={t('webhooks.rotateNote')}>
          <button type="submit" class="button button-secondary button-small" title={t('webhooks.rotateNote')}>{t('webhooks.rotate')}</button>
        </PostForm>
        <PostForm c={c} action={`${here}/state`} class="inline">
          <input type="hidden" name="change" value={endpoint.enabled ? 'disable' : 'enable'} />
          <button type="submit" class="button button-secondary button-small">{t(endpoint.enabled ? 'webhooks.disable' : 'webhooks.enable')}</button>
        </PostForm>
        <a class="button button-secondary button-small" href={`${here}/delete`}>{t('webhooks.delete')}</a>
      </div>
      <p class="help">{t('webhooks.rotateNote')}</p>
      {endpoint.previousSecretExpiresAt && (
        <div class="actions">
          <p>{t('webhooks.previousUntil', { time: when(endpoint.previousSecretExpiresAt, c)! })}</p>
          <PostForm c={c} action={`${here}/expire-previous`} class="inline" confirm={t('webhooks.expirePreviousNote')}>
            <button type="submit" class="button button-secondary button-small" title={t('webhooks.expirePreviousNote')}>{t('webhooks.expirePrevious')}</button>
          </PostForm>
        </div>
      )}

      <h2>{t('webhooks.deliveries')}</h2>
      <p><a href={here}>{t('webhooks.refresh')}</a></p>
      {deliveries.length === 0 ? <p>{t('webhooks.noDeliveries')}</p> : (
        <table class="table">
          <thead><tr><th>{t('webhooks.event')}</th><th>{t('webhooks.status')}</th><th>{t('webhooks.attempts')}</th><th></th></tr></thead>
          <tbody>
            {deliveries.map((d) => (
              <tr data-event={d.eventId}>
                <td data-label={t('webhooks.event')}><code>{d.eventType}</code><br /><span class="muted mono">{d.eventId}</span></td>
                <td data-label={t('webhooks.status')}>
                  <span class={`badge ${deliveryTone[d.status]}`}>{t(`delivery.${d.status}`)}</span>
                  {d.status === 'pending' && d.nextAttemptAt && <div class="help">{t('webhooks.nextAttempt', { time: when(d.nextAttemptAt, c)! })}</div>}
                </td>
                <td data-label={t('webhooks.attempts')}>
                  <ul class="attempts">
                    {d.attemptLog.map((a) => (
                      <li>{when(a.attemptedAt, c)} · <strong>{a.statusCode ?? t('webhooks.noResponse')}</strong> · {a.latencyMs} ms{a.error ? ` · ${a.error}` : ''}{a.responseBody ? <> · <code>{a.responseBody.slice(0, 200)}</code></> : null}</li>
                    ))}
                  </ul>
                </td>
                <td>
                  {endpoint.enabled && (
                    <PostForm c={c} action={`${here}/resend`} class="inline">
                      <input type="hidden" name="event" value={d.eventId} />
                      <button type="submit" class="button button-secondary button-small">{t('webhooks.resend')}</button>
                    </PostForm>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <PostForm c={c} action={`${here}/events`} class="panel">
        <EventChoices c={c} selected={endpoint.events} />
        <button type="submit" class="button">{t('common.save')}</button>
      </PostForm>
      <p><a href={`${base(c.mode)}/webhooks`}>{t('common.back')}</a></p>
    </ConsoleLayout>
  )
}

export function DeletePage({ c, endpoint }: { c: ConsoleContext; endpoint: EndpointItem }) {
  const { t } = c
  return (
    <ConsoleLayout c={c} title={t('webhooks.deleteTitle', { url: endpoint.url })} section="webhooks">
      <h1>{t('webhooks.deleteTitle', { url: endpoint.url })}</h1>
      <p>{t('webhooks.deleteBody')}</p>
      <div class="actions">
        <PostForm c={c} action={`${base(c.mode)}/webhooks/${endpoint.id}/delete`}>
          <button type="submit" class="button button-danger">{t('webhooks.deleteConfirm')}</button>
        </PostForm>
        <a class="button button-secondary" href={`${base(c.mode)}/webhooks/${endpoint.id}`}>{t('common.cancel')}</a>
      </div>
    </ConsoleLayout>
  )
}
