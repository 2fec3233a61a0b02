/**
 * `till activity --merchant mer_…`: a merchant's activity log through the admin API
 * (GET /admin/v1/merchants/{id}/activity; docs/operate.md#admin-api), newest first, filtered.
 */
import { connectionHelp, ADMIN_OPTIONS, JSON_OPTION, id, integer, optionalString, required, type Command } from './args.js'
import { adminApi } from './http.js'
import { print, printJson, table, time } from './output.js'
import { isoTime } from './sessions.js'

interface Entry {
  id: number
  createdAt: string
  mode: string | null
  actor: string
  action: string
  subject: string | null
  ip: string | null
}

export const activity: Command = {
  summary: 'a merchant\'s activity log: who did what, when, from where',
  help: `usage: till activity --merchant ID [--member MEMBER_ID] [--action ACTION] [--since TIME] [--until TIME]
                     [--limit N] [--starting-after ENTRY_ID] [--json]

Lists a merchant's activity log, newest first, every mode: what its console members did and what was
done through the admin API (actor admin:… and the token's fingerprint). Filters combine.

  --merchant ID               the merchant, mer_…
  --member MEMBER_ID          only this member's entries, mem_…
  --action ACTION             only this action (key_created, refund_created, sign_in, …)
  --since TIME, --until TIME  entries at or after, and before, a date (2026-11-21) or an ISO 8601 time
  --limit N                   1 to 100 (default 20)
  --starting-after ENTRY_ID   the page after this entry (the last id of the previous page)
  --json                      print Till's answer as JSON: {"data":[…],"hasMore"}
${connectionHelp('admin', 30)}
  TILL_OPERATOR               your name, kept in the log of each merchant the admin commands change

examples:
  till activity --merchant mer_2b8Zk…
  till activity --merchant mer_2b8Zk… --action refund_created --since 2026-11-01 --json`,
  options: {
    ...ADMIN_OPTIONS, ...JSON_OPTION, merchant: { type: 'string' }, member: { type: 'string' }, action: { type: 'string' },
    since: { type: 'string' }, until: { type: 'string' }, limit: { type: 'string' }, 'starting-after': { type: 'string' },
  },
  async run({ values }) {
    const merchant = id(required(values, 'merchant', 'the merchant id, mer_…'), 'mer', '--merchant')
    const member = optionalString(values, 'member')
    const limit = optionalString(values, 'limit')
    const after = optionalString(values, 'starting-after')
    if (after !== undefined) integer(after, '--starting-after', 1, Number.MAX_SAFE_INTEGER)
    const query = new URLSearchParams(Object.entries({
      member: member === undefined ? undefined : id(member, 'mem', '--member'),
      action: optionalString(values, 'action'),
      since: isoTime(values, 'since'),
      until: isoTime(values, 'until'),
      limit: limit === undefined ? undefined : String(integer(limit, '--limit', 1, 100)),
      starting_after: after,
    }).filter((e): e is [string, string] => e[1] !== undefined))
    const api = adminApi(values)
    const page = await api.request<{ data: Entry[]; hasMore: boolean }>('GET', `/merchants/${encodeURIComponent(merchant)}/activity${query.size ? `?${query}` : ''}`)
    if (values.json) return printJson(page)
    if (page.data.length === 0) return print(after ? 'No more entries.' : 'No activity.')
    print(table(['ID', 'TIME', 'MODE', 'ACTOR', 'ACTION', 'SUBJECT', 'ADDRESS'],
      page.data.map((e) => [String(e.id), time(e.createdAt), e.mode ?? '-', e.actor, e.action, e.subject ?? '-', e.ip ?? '-'])))
    if (page.hasMore) {
      const kept = ['member', 'action', 'since', 'until'].filter((f) => query.has(f)).map((f) => ` --${f} ${query.get(f)}`).join('')
      print(`\nMore: till activity --merchant ${merchant}${kept} --starting-after ${page.data[page.data.length - 1].id}`)
    }
  },
}
