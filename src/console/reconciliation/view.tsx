import { ITEM_CATEGORIES, MISMATCH_CATEGORIES, type CurrencyTotals as Totals, type ItemCategory, type Sums } from '../../domain/reconciliation.js'
import { providerName } from '../../providers/index.js'
import type { ItemView, ReportView } from '../../services/reconciliation-reports.js'
import { money, when } from '../format.js'
import type { ConsoleKey } from '../i18n/index.js'
import { base, ConsoleLayout, Notice, PostForm, type ConsoleContext } from '../views/layout.js'


const tone = (c: ItemCategory | string) => (c === 'matched' || c === 'reconciled' ? 'badge-ok' : c === 'expected' || c === 'waiting' || c === 'fetched' ? 'badge-wait' : 'badge-stop')

const Category = ({ c, category }: { c: ConsoleContext; category: ItemCategory }) => <span class={`badge ${tone(category)}`}>{c.t(`recon.category.${category}`)}</span>

const mismatches = (r: ReportView) => MISMATCH_CATEGORIES.reduce((n, k) => n + r.counts[k], 0)

function State({ c, r }: { c: ConsoleContext; r: ReportView }) {
  return (
    <>
      <span class={`badge ${tone(r.state)}`}>{c.t(`recon.state.${r.state}` as ConsoleKey)}</span>
      {r.reason && <div class="help">{r.reason}</div>}
      {r.state !== 'reconciled' && r.nextTryAt && <div class="help">{c.t('recon.nextTry', { time: when(r.nextTryAt, c)! })}</div>}
    </>
  )
}

export function DaysPage({ c, reports, hasMore, paged, labels }: { c: ConsoleContext; reports: ReportView[]; hasMore: boolean; paged: boolean; labels: Map<string, string> }) {
  const { t, locale } = c
  const here = `${base(c.mode)}/reconciliation`
  return (
    <ConsoleLayout c={c} title={t('recon.pageTitle')} section="reconciliation">
      <h1>{t('recon.pageTitle')}</h1>
      <p class="muted">{t('recon.intro')}</p>
      {c.mode === 'test' ? <p>{t('recon.testMode')}</p> : reports.length === 0 ? <p>{t('recon.none')}</p> : (
        <table class="table">
          <thead><tr><th>{t('recon.date')}</th><th>{t('recon.provider')}</th><th>{t('recon.state')}</th><th class="num">{t('recon.category.matched')}</th><th class="num">{t('recon.category.expected')}</th><th class="num">{t('recon.mismatches')}</th></tr></thead>
          <tbody>
            {reports.map((r) => (
              <tr data-report={r.id}>
                <td data-label={t('recon.date')}><a href={`${here}/${r.id}`}><strong>{r.date}</strong></a></td>
                <td data-label={t('recon.provider')}>{providerName(r.provider, locale)} · {labels.get(r.providerConfigId) ?? r.providerConfigId}</td>
                <td data-label={t('recon.state')}><State c={c} r={r} /></td>
                <td data-label={t('recon.category.matched')} class="num">{r.counts.matched}</td>
                <td data-label={t('recon.category.expected')} class="num">{r.counts.expected}</td>
                <td data-label={t('recon.mismatches')} class="num">
                  {mismatches(r) === 0 ? '0' : <a href={`${here}/${r.id}`}><strong>{t('recon.openOf', { open: String(r.openMismatches), all: String(mismatches(r)) })}</strong></a>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="pager">
        {paged && <a href={here}>{t('common.newest')}</a>}
        {hasMore && reports.length > 0 && <a href={`${here}?after=${reports[reports.length - 1].id}`} rel="next">{t('common.older')}</a>}
      </div>
    </ConsoleLayout>
  )
}

const sums = (c: ConsoleContext, s: Sums, currency: string) => `${s.count} · ${money(s.amount, currency, c.locale)}`

function TotalsTable({ c, totals }: { c: ConsoleContext; totals: Totals[] }) {
  const { t } = c
  return (
    <table class="table">
      <thead><tr><th>{t('recon.currency')}</th><th></th><th>{t('recon.payments')}</th><th>{t('recon.refunds')}</th><th>{t('recon.fees')}</th></tr></thead>
      <tbody>
        {totals.flatMap((x) => [
          <tr data-totals={x.currency}>
            <td data-label={t('recon.currency')}><strong>{x.currency}</strong> {x.agrees === false && <span class="badge badge-stop">{t('recon.totalsDiffer')}</span>}</td>
            <td data-label="">{t('recon.statementSummary')}</td>
            <td data-label={t('recon.payments')}>{x.statement ? sums(c, x.statement.payments, x.currency) : t('common.none')}</td>
            <td data-label={t('recon.refunds')}>{x.statement ? sums(c, x.statement.refunds, x.currency) : t('common.none')}</td>
            <td data-label={t('recon.fees')}>{x.statement ? money(x.statement.fees, x.currency, c.locale) : t('common.none')}</td>
          </tr>,
          <tr>
            <td data-label={t('recon.currency')}>{x.currency}</td>
            <td data-label="">{t('recon.statementLines')}</td>
            <td data-label={t('recon.payments')}>{sums(c, x.lines.payments, x.currency)}</td>
            <td data-label={t('recon.refunds')}>{sums(c, x.lines.refunds, x.currency)}</td>
            <td data-label={t('recon.fees')}>{money(x.lines.fees, x.currency, c.locale)}</td>
          </tr>,
          <tr>
            <td data-label={t('recon.currency')}>{x.currency}</td>
            <td data-label="">Till</td>
            <td data-label={t('recon.payments')}>{sums(c, x.till.payments, x.currency)}</td>
            <td data-label={t('recon.refunds')}>{sums(c, x.till.refunds, x.currency)}</td>
            <td data-label={t('recon.fees')}>{t('common.none')}</td>
          </tr>,
        ])}
      </tbody>
    </table>
  )
}

type Side = Record<string, unknown>

/** A side's status in the page's language (succeeded, pending, failed: a refund's words). */
const statusText = (c: ConsoleContext, status: unknown) => (['succeeded', 'pending', 'failed'].includes(String(status)) ? c.t(`refund.${status}` as ConsoleKey) : String(status))

/** What differs, in the page's language, amounts in their currency. */
function differenceText(c: ConsoleContext, item: ItemView, d: ItemView['differences'][number]) {
  const side = (v: string | number, s: unknown) => d.field === 'amount' ? money(Number(v), String((s as Side | null)?.currency), c.locale) : d.field === 'status' ? statusText(c, v) : String(v)
  return c.t('recon.difference', { field: c.t(`recon.field.${d.field}`), till: side(d.till, item.till), statement: side(d.statement, item.line) })
}

/** Till's side of an item: the record or refund as Till holds it. */
function TillSide({ c, till }: { c: ConsoleContext; till: Side | null }) {
  if (!till) return <p class="muted">{c.t('recon.tillNone')}</p>
  const id = String(till.id)
  return (
    <dl class="facts">
      <dt>{c.t(till.kind === 'refund' ? 'recon.refund' : 'recon.record')}</dt><dd class="mono">{id}</dd>
      {typeof till.ref === 'string' && till.kind === 'payment' && <><dt>{c.t('recon.attempt')}</dt><dd class="mono">{till.ref}</dd></>}
      <dt>{c.t('recon.amount')}</dt><dd>{money(Number(till.amount), String(till.currency), c.locale)}</dd>
      <dt>{c.t('recon.status')}</dt><dd>{statusText(c, till.status)}</dd>
      <dt>{c.t('recon.at')}</dt><dd>{when(String(till.at), c)}</dd>
    </dl>
  )
}

/** The statement's side: the line as the provider stated it, with its own fields (provider text: escaped like any other). */
function LineSide({ c, line }: { c: ConsoleContext; line: Side | null }) {
  if (!line) return <p class="muted">{c.t('recon.lineNone')}</p>
  const fields = (line.fields ?? {}) as Record<string, string>
  return (
    <>
      <dl class="facts">
        <dt>{c.t('recon.source')}</dt><dd class="mono">{String(line.day)} · {String(line.file)}:{String(line.line)}</dd>
        {line.tillRef !== null && <><dt>{c.t('recon.tillRef')}</dt><dd class="mono">{String(line.tillRef)}</dd></>}
        {line.providerRef !== null && <><dt>{c.t('recon.providerRef')}</dt><dd class="mono">{String(line.providerRef)}</dd></>}
        <dt>{c.t('recon.amount')}</dt><dd>{money(Number(line.amount), String(line.currency), c.locale)}</dd>
        <dt>{c.t('recon.status')}</dt><dd>{statusText(c, line.status)}</dd>
        {line.fee !== null && <><dt>{c.t('recon.fee')}</dt><dd>{money(Number(line.fee), String(line.currency), c.locale)}</dd></>}
        <dt>{c.t('recon.at')}</dt><dd>{when(String(line.at), c)}</dd>
      </dl>
      {Object.keys(fields).length > 0 && (
        <details>
          <summary>{c.t('recon.fields')}</summary>
          <dl class="facts">{Object.entries(fields).map(([k, v]) => <><dt>{k}</dt><dd class="mono">{v}</dd></>)}</dl>
        </details>
      )}
    </>
  )
}

function Item({ c, report, item }: { c: ConsoleContext; report: ReportView; item: ItemView }) {
  const { t } = c
  return (
    <section class="panel" id={item.id} data-item={item.id} data-category={item.category}>
      <h2><Category c={c} category={item.category} /> <span class="muted">{t(item.kind === 'refund' ? 'recon.refund' : 'recon.payment')}</span></h2>
      {item.differences.length > 0 && (
        <p>{item.differences.map((d) => differenceText(c, item, d)).join(' · ')}</p>
      )}
      {item.expectedUntil && <p class="help">{t('recon.expectedUntil', { time: when(item.expectedUntil, c)! })}</p>}
      <div class="grid-2">
        <div><h3>Till</h3><TillSide c={c} till={item.till as Side | null} /></div>
        <div><h3>{t('recon.statement')}</h3><LineSide c={c} line={item.line as Side | null} /></div>
      </div>
      {item.acknowledgedAt ? (
        <p class="help">{t('recon.acknowledged', { who: item.acknowledgedBy ?? '', time: when(item.acknowledgedAt, c)! })}: {item.acknowledgementNote}</p>
      ) : item.category !== 'matched' && item.category !== 'expected' && (
        <PostForm c={c} action={`${base(c.mode)}/reconciliation/${report.id}/items/${item.id}/acknowledge`} class="inline-form">
          <div class="field">
            <label for={`note-${item.id}`}>{t('recon.note')}</label>
            <input id={`note-${item.id}`} name="note" type="text" maxlength={500} required />
          </div>
          <button type="submit" class="button">{t('recon.acknowledge')}</button>
        </PostForm>
      )}
    </section>
  )
}

export function DayPage({ c, report, items, hasMore, category, paged, label, notice, error, files }: {
  c: ConsoleContext; report: ReportView; items: ItemView[]; hasMore: boolean; category: ItemCategory | null; paged: boolean; label: string
  notice: 'rechecked' | 'acknowledged' | null; error: string | null; files: { name: string; size: number }[]
}) {
  const { t, locale } = c
  const here = `${base(c.mode)}/reconciliation/${report.id}`
  const filter = category ? `category=${category}&` : ''
  return (
    <ConsoleLayout c={c} title={`${t('recon.pageTitle')} · ${report.date}`} section="reconciliation">
      <p><a href={`${base(c.mode)}/reconciliation`}>{t('common.back')}</a></p>
      <h1>{report.date} · {providerName(report.provider, locale)} · {label}</h1>
      {notice && <Notice kind="ok">{t(`recon.notice.${notice}`)}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <div class="grid-2">
        <section class="panel">
          <dl class="facts">
            <dt>{t('recon.state')}</dt><dd><State c={c} r={report} /></dd>
            <dt>{t('recon.zone')}</dt><dd>{report.zone}</dd>
            {report.reconciledAt && <><dt>{t('recon.reconciledAt')}</dt><dd>{when(report.reconciledAt, c)}</dd></>}
            <dt>{t('recon.mismatches')}</dt><dd>{t('recon.openOf', { open: String(report.openMismatches), all: String(mismatches(report)) })}</dd>
            {files.length > 0 && <><dt>{t('recon.files')}</dt><dd>{files.map((f) => (
              <div><a href={`${here}/files/${encodeURIComponent(f.name)}`} download>{f.name}</a> ({t('recon.fileSize', { bytes: f.size.toLocaleString(locale) })})</div>
            ))}</dd></>}
          </dl>
          <div class="actions">
            <PostForm c={c} action={`${here}/recheck`} class="inline">
              <button type="submit" class="button">{t('recon.recheck')}</button>
            </PostForm>
            <a href={`${here}/export.csv`} download>{t('recon.export')}</a>
          </div>
        </section>
        <section class="panel">
          <ul class="counts">
            {ITEM_CATEGORIES.map((k) => (
              <li data-count={k}><a href={`${here}?category=${k}`} aria-current={category === k ? 'true' : undefined}><Category c={c} category={k} /></a> {report.counts[k]}</li>
            ))}
          </ul>
        </section>
      </div>
      {report.totals.length > 0 && <><h2>{t('recon.totals')}</h2><TotalsTable c={c} totals={report.totals} /></>}
      <h2>{category ? t(`recon.category.${category}`) : t('recon.mismatches')}</h2>
      {category && <p><a href={here}>{t('recon.allMismatches')}</a></p>}
      {items.length === 0 ? <p>{t(category ? 'recon.noItems' : 'recon.noMismatches')}</p> : items.map((i) => <Item c={c} report={report} item={i} />)}
      <div class="pager">
        {paged && <a href={`${here}${category ? `?category=${category}` : ''}`}>{t('common.newest')}</a>}
        {hasMore && items.length > 0 && <a href={`${here}?${filter}after=${items[items.length - 1].id}`} rel="next">{t('common.older')}</a>}
      </div>
    </ConsoleLayout>
  )
}
