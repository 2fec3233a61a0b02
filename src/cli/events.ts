/** `till events list|show|resend`: the merchant's events API (/api/v1/events), as the key's merchant and mode. */
import { EVENT_TYPES } from '../domain/events.js'
import { connectionHelp, API_OPTIONS, JSON_OPTION, id, integer, optionalString, usageError, type Group } from './args.js'
import { merchantApi } from './http.js'
import { money, print, printJson, table, time } from './output.js'

type Data = Record<string, unknown>

/** Why an attempt failed: Till's own error (no answer), else what a refusing endpoint answered, on one line. */
function attemptError(a: { statusCode: number | null; responseBody: string | null; error: string | null }): string {
  if (a.error) return a.error
  if (a.statusCode === null || (a.statusCode >= 200 && a.statusCode < 300)) return ''
  const body = (a.responseBody ?? '').replace(/\s+/g, ' ').trim()
  return `answered ${a.statusCode}${body ? `: ${body.length > 60 ? `${body.slice(0, 60)}…` : body}` : ''}`
}

export const TYPES_HELP = `event types: ${EVENT_TYPES.slice(0, 4).join(', ')},
             ${EVENT_TYPES.slice(4, 7).join(', ')},
             ${EVENT_TYPES.slice(7).join(', ')}`

/** What an event is about, in one cell: the session or refund and its amount, or the reconciled day. */
function subject(data: Data): string {
  if (typeof data.reportId === 'string') return `${data.reportId}  ${data.date}`
  const object = (data.refundId ?? data.sessionId ?? '-') as string
  return typeof data.amount === 'number' ? `${object}  ${money(data.amount, String(data.currency))}` : object
}

export const events: Group = {
  name: 'events',
  summary: 'the webhook events of a key\'s merchant and mode',
  commands: {
    list: {
      summary: 'list events, newest first',
      help: `usage: till events list [--type TYPE] [--limit N] [--starting-after EVENT_ID] [--json]

Lists the events of the key's merchant and mode (a test key sees test events), newest first.
Amounts are shown in the currency's major unit (¥99.00 CNY); --json prints the API's minor units.

  --type TYPE                 only events of this type (see below)
  --limit N                   1 to 100 (default 10)
  --starting-after EVENT_ID   the page after this event (the last id of the previous page)
  --json                      print Till's answer as JSON: {"data":[…],"hasMore"}
${connectionHelp('api', 30)}

${TYPES_HELP}

examples:
  till events list
  till events list --type payment.succeeded --limit 50 --json`,
      options: { ...API_OPTIONS, ...JSON_OPTION, type: { type: 'string' }, limit: { type: 'string' }, 'starting-after': { type: 'string' } },
      async run({ values }) {
        const type = optionalString(values, 'type')
        if (type !== undefined && !(EVENT_TYPES as readonly string[]).includes(type)) {
          throw usageError(`--type must be one of ${EVENT_TYPES.join(', ')}, not ${JSON.stringify(type)}`)
        }
        const limitText = optionalString(values, 'limit')
        const after = optionalString(values, 'starting-after')
        const query = {
          ...(type ? { type: type as (typeof EVENT_TYPES)[number] } : {}),
          ...(limitText === undefined ? {} : { limit: integer(limitText, '--limit', 1, 100) }),
          ...(after === undefined ? {} : { starting_after: id(after, 'evt', '--starting-after') }),
        }
        const api = merchantApi(values)
        const page = await api.call((till) => till.events.list(query))
        if (values.json) return printJson(page)
        if (page.data.length === 0) return print(after ? 'No more events.' : `No ${api.mode}-mode events${type ? ` of type ${type}` : ''}.`)
        print(table(['CREATED', 'ID', 'TYPE', 'SUBJECT'], page.data.map((e) => [time(e.createdAt), e.id, e.type, subject(e.data as Data)])))
        if (page.hasMore) print(`\nMore: till events list --starting-after ${page.data[page.data.length - 1].id}${type ? ` --type ${type}` : ''}`)
      },
    },
    show: {
      summary: 'show an event with its deliveries and every attempt',
      help: `usage: till events show EVENT_ID [--json]

Shows the event's body and, per webhook endpoint, its delivery and each attempt (status code or
error, latency): what to look at when a merchant says a webhook never arrived.

  --json               print Till's answer as JSON
${connectionHelp('api')}

example:
  till events show evt_9Fq2…`,
      options: { ...API_OPTIONS, ...JSON_OPTION },
      positionals: ['EVENT_ID'],
      async run({ values, positionals }) {
        const eventId = id(positionals[0], 'evt', 'EVENT_ID')
        const e = await merchantApi(values).call((till) => till.events.retrieve(eventId))
        if (values.json) return printJson(e)
        print(`${e.id}  ${e.type}  ${e.mode} mode  created ${time(e.createdAt)}`)
        print(JSON.stringify(e.data, null, 2))
        if (e.deliveries.length === 0) return print('\nNo deliveries: no enabled webhook endpoint took this event.')
        for (const d of e.deliveries) {
          const next = d.status === 'pending' && d.nextAttemptAt ? `, next attempt ${time(d.nextAttemptAt)}` : ''
          print(`\n${d.endpointId}  ${d.url}  ${d.status}${next}`)
          if (d.attempts.length === 0) continue
          print(table(['  ATTEMPTED', 'STATUS', 'LATENCY', 'ERROR'], d.attempts.map((a) => [
            `  ${time(a.attemptedAt)}`, a.statusCode === null ? '-' : String(a.statusCode), `${a.latencyMs} ms`, attemptError(a),
          ])))
        }
      },
    },
    resend: {
      summary: 'send an event again now',
      help: `usage: till events resend EVENT_ID [--endpoint ENDPOINT_ID] [--json]

Sends the event again, now, as a fresh run of the retry schedule: to every enabled webhook
endpoint whose filter takes it, or only to --endpoint (even if its filter skips this type).

  --endpoint ENDPOINT_ID   only this webhook endpoint, we_…
  --json                   print Till's answer as JSON: {"id","scheduled":[{"endpointId","url","nextAttemptAt"}]}
${connectionHelp('api', 27)}

examples:
  till events resend evt_9Fq2…
  till events resend evt_9Fq2… --endpoint we_4Kd8…`,
      options: { ...API_OPTIONS, ...JSON_OPTION, endpoint: { type: 'string' } },
      positionals: ['EVENT_ID'],
      async run({ values, positionals }) {
        const eventId = id(positionals[0], 'evt', 'EVENT_ID')
        const endpoint = optionalString(values, 'endpoint')
        const body = endpoint === undefined ? {} : { endpointId: id(endpoint, 'we', '--endpoint') }
        const r = await merchantApi(values).call((till) => till.events.redeliver(eventId, body))
        if (values.json) return printJson(r)
        print(`Resending ${r.id} to ${r.scheduled.length} endpoint${r.scheduled.length === 1 ? '' : 's'}:`)
        for (const s of r.scheduled) print(`  ${s.endpointId}  ${s.url}`)
      },
    },
  },
}
