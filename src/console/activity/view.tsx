import { ACTIVITY_ACTIONS, type ActivityRow } from '../../services/activity.js'
import { money, when } from '../format.js'
import type { ConsoleKey } from '../i18n/index.js'
import { base, ConsoleLayout, Notice, type ConsoleContext } from '../views/layout.js'
import { withFilters, type ActivityQuery } from './filter.js'

export interface MemberOption {
  id: string
  email: string
  removedAt: Date | null
}

/** The few details worth a glance, written out; the rest stays in the database. */
function details(c: ConsoleContext, r: ActivityRow): string {
  const d = r.detail as Record<string, unknown>
  const parts: string[] = []
  if (typeof d.last4 === 'string') parts.push(`…${d.last4}`)
  if (typeof d.label === 'string') parts.push(d.label)
  if (typeof d.url === 'string') parts.push(d.url)
  if (typeof d.type === 'string') parts.push(d.type)
  if (typeof d.enabled === 'boolean') parts.push(c.t(d.enabled ? 'providers.enabled' : 'providers.disabled'))
  if (d.isDefault === true) parts.push(c.t('providers.default'))
  if (typeof d.amount === 'number' && typeof d.currency === 'string') parts.push(money(d.amount, d.currency, c.locale))
  if (typeof d.recordId === 'string') parts.push(d.recordId)
  if (typeof d.date === 'string') parts.push(d.date)
  if (typeof d.category === 'string') parts.push(c.t(`recon.category.${d.category}` as ConsoleKey))
  if (typeof d.note === 'string') parts.push(d.note)
  if (typeof d.failures === 'number' && typeof d.failingSince === 'string') parts.push(c.t('activity.failures', { n: String(d.failures), time: when(d.failingSince, c)! }))
  if (typeof d.reason === 'string') parts.push(d.reason)
  if (typeof d.operator === 'string') parts.push(c.t('activity.operator', { name: d.operator }))
  return parts.join(' · ')
}

/** The member and action filters; the choices are every member the merchant has had and every action. */
function Filters({ c, members, query }: { c: ConsoleContext; members: MemberOption[]; query: ActivityQuery }) {
  const { t } = c
  const listUrl = `${base(c.mode)}/activity`
  return (
    <form method="get" action={listUrl} class="filters two panel" role="search">
      <div class="field">
        <label for="member">{t('activity.member')}</label>
        <select id="member" name="member">
          <option value="">{t('activity.anyone')}</option>
          {members.map((m) => <option value={m.id} selected={query.member === m.id}>{m.removedAt ? t('activity.removedMember', { email: m.email }) : m.email}</option>)}
        </select>
      </div>
      <div class="field">
        <label for="action">{t('activity.action')}</label>
        <select id="action" name="action">
          <option value="">{t('activity.anyAction')}</option>
          {ACTIVITY_ACTIONS.map((a) => <option value={a} selected={query.action === a}>{t(`activity.${a}` as ConsoleKey)}</option>)}
        </select>
      </div>
      <div class="actions wide">
        <button type="submit" class="button">{t('payments.filter')}</button>
        {(query.member || query.action) && <a href={listUrl}>{t('payments.clear')}</a>}
        <a class="button button-secondary" href={`${listUrl}/export.csv${query.member || query.action ? `?${withFilters(query)}` : ''}`} download>{t('activity.exportCsv')}</a>
      </div>
    </form>
  )
}

export function ActivityPage({ c, rows, members, query, next, paged, error }: {
  c: ConsoleContext; rows: ActivityRow[]; members: MemberOption[]; query: ActivityQuery; next: number | null; paged: boolean; error: string | null
}) {
  const { t } = c
  const listUrl = `${base(c.mode)}/activity`
  const filtered = Boolean(query.member || query.action)
  return (
    <ConsoleLayout c={c} title={t('activity.pageTitle')} section="activity">
      <h1>{t('activity.pageTitle')}</h1>
      {error && <Notice kind="error">{error}</Notice>}
      <Filters c={c} members={members} query={query} />
      {rows.length === 0 ? <p>{t(filtered ? 'activity.noneFiltered' : 'activity.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('activity.time')}</th><th>{t('activity.who')}</th><th>{t('activity.what')}</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr data-action={r.action} data-member={r.memberId ?? ''}>
                <td data-label={t('activity.time')}>{when(r.createdAt, c)}</td>
                {/* One box per cell: on a phone the cell is a row beside its label, and each child would be a column of it. */}
                <td data-label={t('activity.who')}><div class="cell">{r.actor}{r.ip ? <div class="help">{r.ip}</div> : null}</div></td>
                <td data-label={t('activity.what')}>
                  <div class="cell">
                    <strong>{t(`activity.${r.action}` as ConsoleKey)}</strong>
                    {r.subject && <div class="mono muted">{r.subject}</div>}
                    <div class="help">{details(c, r)}</div>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="pager">
        {paged && <a href={`${listUrl}?${withFilters(query)}`}>{t('common.newest')}</a>}
        {next !== null && <a href={`${listUrl}?${withFilters(query, [['before', String(next)]])}`} rel="next">{t('common.older')}</a>}
      </div>
    </ConsoleLayout>
  )
}
