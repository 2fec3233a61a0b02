/**
 * The metrics' names before they took the `till_` prefix, served beside the new ones for one
 * release so dashboards and alerts can move (docs/operate.md#metrics): each renamed family is
 * repeated in the scrape under its old name, its help saying so. Remove after the next release.
 */
export const LEGACY_NAMES: Readonly<Record<string, string>> = {
  till_http_requests_total: 'http_requests_total',
  till_http_request_duration_seconds: 'http_request_duration_seconds',
  till_webhook_deliveries_total: 'webhook_deliveries_total',
  till_provider_discrepancies_total: 'provider_discrepancies_total',
  till_webhook_outbox_lag_seconds: 'webhook_outbox_lag_seconds',
  till_session_waits: 'session_waits',
  till_db_pool_connections: 'db_pool_connections',
  till_sessions: 'sessions',
  till_reconciliation_open_mismatches: 'reconciliation_open_mismatches',
}

/** The exposition text with every renamed family repeated under its old name at the end. */
export function withLegacyNames(text: string): string {
  const copies: string[] = []
  let family: { name: string; old: string } | null = null
  for (const line of text.split('\n')) {
    const help = /^# HELP (\S+) /.exec(line)
    if (help) {
      const old = LEGACY_NAMES[help[1]]
      family = old ? { name: help[1], old } : null
      if (family) copies.push(`# HELP ${family.old} Deprecated: renamed ${family.name}, this name goes in the next release`)
      continue
    }
    if (!family) continue
    if (line.startsWith(`# TYPE ${family.name} `)) copies.push(`# TYPE ${family.old} ${line.slice(`# TYPE ${family.name} `.length)}`)
    else if (line.startsWith(family.name)) copies.push(family.old + line.slice(family.name.length))
  }
  return copies.length ? `${text.replace(/\n*$/, '\n')}${copies.join('\n')}\n` : text
}
