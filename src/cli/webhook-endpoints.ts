/** `till webhooks endpoints list|create|delete`: where Till sends the key's merchant and mode's webhooks. */
import { EVENT_TYPES } from '../domain/events.js'
import { connectionHelp, API_OPTIONS, JSON_OPTION, id, optionalString, usageError, type Command } from './args.js'
import type { Till } from '@till-payments/node'
import { merchantApi } from './http.js'
import { print, printJson, table, time } from './output.js'

type EventType = (typeof EVENT_TYPES)[number]

/** --events TYPE,…: known types, each once. */
export function eventFilter(text: string | undefined): EventType[] | undefined {
  if (text === undefined) return undefined
  const types = text.split(',').map((s) => s.trim()).filter(Boolean)
  const bad = types.find((t) => !(EVENT_TYPES as readonly string[]).includes(t))
  if (bad !== undefined || types.length === 0) throw usageError(`--events takes a comma-separated list of ${EVENT_TYPES.join(', ')}${bad ? `; not ${JSON.stringify(bad)}` : ''}`)
  return [...new Set(types)] as EventType[]
}

type Endpoint = Awaited<ReturnType<Till['webhookEndpoints']['retrieve']>>

/** `no: failing` when Till disabled it (docs/integrate.md#endpoint-health). */
const enabledText = (e: Endpoint) => (e.enabled ? 'yes' : e.health.disabledForFailingAt ? 'no: failing' : 'no')

/** `66.7% of 3`: the share of the last 24 hours' attempts that were delivered. */
const delivered = (h: Endpoint['health']) =>
  h.recentSuccessRate === null ? '-' : `${Number((h.recentSuccessRate * 100).toFixed(1))}% of ${h.recentAttempts}`

const lastFailure = (h: Endpoint['health']) => (h.lastFailureAt ? `${time(h.lastFailureAt)} ${h.lastFailureReason ?? ''}`.trimEnd() : '-')

export const webhookEndpoints: Command = {
  summary: 'list, create or delete webhook endpoints (endpoints list|create URL|delete ID)',
  help: `usage: till webhooks endpoints list [--json]
       till webhooks endpoints create ENDPOINT_URL [--events TYPE,…] [--json]
       till webhooks endpoints delete ENDPOINT_ID

The webhook endpoints of the key's merchant and mode (a test key manages test-mode endpoints).
list shows each one's health: the share of the last 24 hours' attempts delivered, and the last
failure with its reason; ENABLED reads "no: failing" when Till disabled it because every delivery
failed for 3 days (see the integration guide, "Endpoint health").
create prints the endpoint's signing secret (whsec_…) once: store it to verify the webhooks.
Live mode takes only https URLs.

  --events TYPE,…   create: only these event types (default: every type)
  --json            print Till's answer as JSON
${connectionHelp('api', 20)}

event types: ${EVENT_TYPES.join(', ')}

examples:
  till webhooks endpoints list
  till webhooks endpoints create https://shop.example.com/till --events payment.succeeded,refund.succeeded
  till webhooks endpoints delete we_4Kd8…`,
  options: { ...API_OPTIONS, ...JSON_OPTION, events: { type: 'string' } },
  positionals: ['ACTION', 'ARGUMENT?'],
  async run({ values, positionals: [action, arg] }) {
    const needs = (what: string) => {
      if (arg === undefined) throw usageError(`${action} needs ${what}`)
      return arg
    }
    if (action === 'list') {
      if (arg !== undefined) throw usageError(`unexpected argument ${JSON.stringify(arg)}`)
      const { data } = await merchantApi(values).call((till) => till.webhookEndpoints.list())
      if (values.json) return printJson({ data })
      if (data.length === 0) return print('No webhook endpoints.')
      return print(table(['ID', 'URL', 'EVENTS', 'ENABLED', 'DELIVERED (24 H)', 'LAST FAILURE', 'CREATED'], data.map((e) => [
        e.id, e.url, e.events ? e.events.join(',') : 'all', enabledText(e), delivered(e.health), lastFailure(e.health), time(e.createdAt),
      ])))
    }
    if (action === 'create') {
      const url = needs('the endpoint\'s URL')
      const events = eventFilter(optionalString(values, 'events'))
      const e = await merchantApi(values).call((till) => till.webhookEndpoints.create({ url, ...(events ? { events } : {}) }))
      if (values.json) return printJson(e)
      print(`Created ${e.id} (${e.mode} mode): ${e.url}, events: ${e.events ? e.events.join(', ') : 'all'}`)
      return print(`Signing secret (shown once, store it): ${e.secret}`)
    }
    if (action === 'delete') {
      const endpointId = id(needs('the endpoint\'s id'), 'we', 'ENDPOINT_ID')
      const e = await merchantApi(values).call((till) => till.webhookEndpoints.delete(endpointId))
      if (values.json) return printJson(e)
      return print(`Deleted ${endpointId}.`)
    }
    throw usageError(`unknown action ${JSON.stringify(action)} (list, create, delete)`)
  },
}
