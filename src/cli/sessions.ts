/** `till sessions list|show` (and cancel|expire, session-close.ts): the payment sessions of a key's merchant and mode, read back. */
import { SESSION_STATUSES } from '../domain/session-machine.js'
import { connectionHelp, API_OPTIONS, JSON_OPTION, id, integer, oneOf, optionalString, usageError, type Group, type Values } from './args.js'
import { merchantApi } from './http.js'
import { money, print, printJson, table, time } from './output.js'
import { closeCommands } from './session-close.js'

/** A time flag as the API takes it: ISO 8601 with a zone, or a date (midnight UTC). */
export function isoTime(values: Values, flag: string): string | undefined {
  const v = optionalString(values, flag)
  if (v === undefined) return undefined
  const text = /^\d{4}-\d\d-\d\d$/.test(v) ? `${v}T00:00:00Z` : v
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(text) || Number.isNaN(Date.parse(text))) {
    throw usageError(`--${flag} must be a date (2026-11-21) or an ISO 8601 time with a zone (2026-11-21T09:30:00Z), not ${JSON.stringify(v)}`)
  }
  return text
}

/** --metadata KEY=VALUE, repeatable. */
export function metadataOf(values: Values): Record<string, string> | undefined {
  const given = values.metadata as unknown as string[] | undefined
  if (!given || given.length === 0) return undefined
  return Object.fromEntries(given.map((pair) => {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw usageError(`--metadata takes KEY=VALUE, not ${JSON.stringify(pair)}`)
    return [pair.slice(0, eq), pair.slice(eq + 1)]
  }))
}

export const sessions: Group = {
  name: 'sessions',
  summary: 'the payment sessions of a key\'s merchant and mode',
  commands: {
    list: {
      summary: 'list sessions, newest first',
      help: `usage: till sessions list [--status STATUS] [--created-gte TIME] [--created-lt TIME]
                         [--metadata KEY=VALUE]… [--limit N] [--starting-after SESSION_ID] [--json]

Lists the sessions of the key's merchant and mode, newest first. Amounts are shown in the
currency's major unit (¥99.00 CNY); --json prints the API's minor units (9900).

  --status STATUS              ${SESSION_STATUSES.join(', ')}
  --created-gte TIME           created at or after (2026-11-21, or 2026-11-21T09:30:00Z)
  --created-lt TIME            created before
  --metadata KEY=VALUE         whose metadata has this pair (repeat for several)
  --limit N                    1 to 100 (default 10)
  --starting-after SESSION_ID  the page after this session (the last id of the previous page)
  --json                       print Till's answer as JSON: {"data":[…],"hasMore"}
${connectionHelp('api', 31)}

examples:
  till sessions list --status paid
  till sessions list --metadata order=A-1042 --json`,
      options: {
        ...API_OPTIONS, ...JSON_OPTION, status: { type: 'string' }, 'created-gte': { type: 'string' }, 'created-lt': { type: 'string' },
        metadata: { type: 'string', multiple: true }, limit: { type: 'string' }, 'starting-after': { type: 'string' },
      },
      async run({ values }) {
        const status = optionalString(values, 'status')
        const limit = optionalString(values, 'limit')
        const after = optionalString(values, 'starting-after')
        const query = {
          ...(status === undefined ? {} : { status: oneOf(status, '--status', SESSION_STATUSES) }),
          ...(limit === undefined ? {} : { limit: integer(limit, '--limit', 1, 100) }),
          ...(after === undefined ? {} : { starting_after: id(after, 'sess', '--starting-after') }),
          created_gte: isoTime(values, 'created-gte'),
          created_lt: isoTime(values, 'created-lt'),
          metadata: metadataOf(values),
        }
        const api = merchantApi(values)
        const page = await api.call((till) => till.sessions.list(query))
        if (values.json) return printJson(page)
        if (page.data.length === 0) return print(after ? 'No more sessions.' : `No ${api.mode}-mode sessions match.`)
        print(table(['CREATED', 'ID', 'STATUS', 'AMOUNT', 'RECORD'], page.data.map((s) => [
          // A partial refund leaves the session paid: its record says so.
          time(s.createdAt), s.id, s.record && s.record.status !== s.status ? `${s.status} (${s.record.status})` : s.status, money(s.amount, s.currency), s.record ? s.record.id : '-',
        ])))
        if (page.hasMore) print(`\nMore: till sessions list --starting-after ${page.data[page.data.length - 1].id}`)
      },
    },
    show: {
      summary: 'show a session, with its payment record and refunds once paid',
      help: `usage: till sessions show SESSION_ID [--json]

Shows the session and, once paid, its payment record with every refund.

  --json               print {"session","record"} as JSON (record: null before payment)
${connectionHelp('api')}

example:
  till sessions show sess_9Fq2…`,
      options: { ...API_OPTIONS, ...JSON_OPTION },
      positionals: ['SESSION_ID'],
      async run({ values, positionals }) {
        const sessionId = id(positionals[0], 'sess', 'SESSION_ID')
        const api = merchantApi(values)
        const s = await api.call((till) => till.sessions.retrieve(sessionId))
        const record = s.record ? await api.call((till) => till.records.retrieve(s.record!.id)) : null
        if (values.json) return printJson({ session: s, record })
        print(`${s.id}  ${s.status}  ${money(s.amount, s.currency)}  ${s.mode} mode`)
        print(`created ${time(s.createdAt)}, expires ${time(s.expiresAt)}, provider ${s.chosenProvider ?? '-'}`)
        if (s.description) print(`description: ${s.description}`)
        if (Object.keys(s.metadata).length > 0) print(`metadata: ${JSON.stringify(s.metadata)}`)
        if (s.customerEmail) print(`receipt email: ${s.customerEmail}`)
        print(`checkout: ${s.url}`)
        if (!record) return
        print(`\n${record.id}  ${record.status}  paid ${time(record.paidAt)} via ${record.provider} (${record.providerRef})`)
        print(`refunded ${money(record.refundedAmount, record.currency)} of ${money(record.amount, record.currency)}`)
        if (record.refunds.length === 0) return
        print(table(['  CREATED', 'REFUND', 'STATUS', 'AMOUNT', 'REASON'], record.refunds.map((f) => [
          `  ${time(f.createdAt)}`, f.id, f.status, money(f.amount, record.currency), f.reason ?? '',
        ])))
      },
    },
    ...closeCommands,
  },
}
