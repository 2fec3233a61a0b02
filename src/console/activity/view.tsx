import type { ActivityRow } from '../../services/activity.js'
import { money, when } from '../format.js'
import type { ConsoleKey } from '../i18n/index.js'
import { base, ConsoleLayout, type ConsoleContext } from '../views/layout.js'

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
  return parts.join(' · ')
}

export function ActivityPage({ c, rows, next, paged }: { c: ConsoleContext; rows: ActivityRow[]; next: number | null; paged: boolean }) {
  const { t, locale } = c
  return (
    <ConsoleLayout c={c} title={t('activity.pageTitle')} section="activity">
      <h1>{t('activity.pageTitle')}</h1>
      {rows.length === 0 ? <p>{t('activity.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('activity.time')}</th><th>{t('activity.who')}</th><th>{t('activity.what')}</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr data-action={r.action}>
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
        {paged && <a href={`${base(c.mode)}/activity`}>{t('common.newest')}</a>}
        {next !== null && <a href={`${base(c.mode)}/activity?before=${next}`}>{t('common.older')}</a>}
      </div>
    </ConsoleLayout>
  )
}
