/**
 * `till reconcile --date YYYY-MM-DD [--config pc_…]`: reconciles a day against the providers' own
 * statements now, through the admin API (POST /admin/v1/reconciliation/runs; docs/reconciliation.md),
 * and prints each configuration's result.
 */
import { ITEM_CATEGORIES, isDay, isMismatch } from '../domain/reconciliation.js'
import { connectionHelp, ADMIN_OPTIONS, JSON_OPTION, id, optionalString, required, usageError, type Command } from './args.js'
import { adminApi } from './http.js'
import { print, printJson, time } from './output.js'

interface Report {
  id: string
  provider: string
  providerConfigId: string
  date: string
  state: string
  reason: string | null
  nextTryAt: string | null
  counts: Record<string, number>
  openMismatches: number
  totals: { currency: string; agrees: boolean | null }[]
}

/** One line per configuration: its state, and what the run found. */
function describe(r: Report): string {
  const head = `${r.provider} ${r.providerConfigId} ${r.date}: ${r.state}`
  if (r.state !== 'reconciled') return `${head}: ${r.reason ?? ''}${r.nextTryAt ? `; next try ${time(r.nextTryAt)}` : ''}`
  const found = ITEM_CATEGORIES.filter((c) => isMismatch(c) && r.counts[c] > 0).map((c) => `${r.counts[c]} ${c}`)
  const differ = r.totals.filter((t) => t.agrees === false).map((t) => t.currency)
  return [
    `${head}, ${r.counts.matched} matched, ${r.counts.expected} expected, ${found.length ? found.join(', ') : 'no mismatches'}`,
    r.openMismatches ? ` (${r.openMismatches} not acknowledged)` : '',
    differ.length ? `; the statement's summary disagrees with its lines in ${differ.join(', ')}` : '',
  ].join('')
}

export const reconcile: Command = {
  summary: 'reconcile a day against the providers\' own statements now',
  help: `usage: till reconcile --date YYYY-MM-DD [--config CONFIG_ID] [--json]

Fetches the providers' statements of a past day (in each provider's time zone) when Till does not
keep them yet, and matches every line with Till's payments and refunds. A day already reconciled is
matched again from its kept files. Till does this every day by itself; this runs a day now (an
older one, or again after a fix). The console's Reconciliation page shows each mismatch.

  --date YYYY-MM-DD    the provider's day
  --config CONFIG_ID   one provider configuration, pc_…; default: every enabled one whose provider
                       has statements
  --json               print Till's answer as JSON: {"data":[report, …]}
${connectionHelp('admin')}

examples:
  till reconcile --date 2026-05-20
  till reconcile --date 2026-05-20 --config pc_5Hn2… --json`,
  options: { ...ADMIN_OPTIONS, ...JSON_OPTION, date: { type: 'string' }, config: { type: 'string' } },
  async run({ values }) {
    const date = required(values, 'date', 'the provider\'s day, YYYY-MM-DD')
    if (!isDay(date)) throw usageError(`--date must be a day written YYYY-MM-DD, not ${JSON.stringify(date)}`)
    const config = optionalString(values, 'config')
    const api = adminApi(values)
    const res = await api.request<{ data: Report[] }>('POST', '/reconciliation/runs', { date, ...(config ? { providerConfigId: id(config, 'pc', '--config') } : {}) })
    if (values.json) return printJson(res)
    if (!res.data.length) return print('No provider configuration with statements to reconcile.')
    for (const r of res.data) print(describe(r))
  },
}
