/** `till sessions cancel|expire SESSION_ID`: the merchant closes an open session (POST /api/v1/sessions/{id}/cancel|expire). */
import { connectionHelp, API_OPTIONS, JSON_OPTION, id, type Command } from './args.js'
import { merchantApi } from './http.js'
import { money, print, printJson, time } from './output.js'

const close = (how: 'cancel' | 'expire', outcome: string): Command => ({
  summary: `${how} an open session (pending or processing)`,
  help: `usage: till sessions ${how} SESSION_ID [--json]

Makes an open session ${outcome}${how === 'expire' ? ' now' : ''}: its open order at the provider is closed first, then
session.${outcome} is sent. A session already paid, refunded, failed, canceled or expired is
refused (session_terminal, exit 1). A payment that still lands afterwards is recorded as paid.

  --json               print the session as JSON
${connectionHelp('api')}

example:
  till sessions ${how} sess_9Fq2…`,
  options: { ...API_OPTIONS, ...JSON_OPTION },
  positionals: ['SESSION_ID'],
  async run({ values, positionals }) {
    const sessionId = id(positionals[0], 'sess', 'SESSION_ID')
    const s = await merchantApi(values).call((till) => till.sessions[how](sessionId))
    if (values.json) return printJson(s)
    print(`${s.id}  ${s.status}  ${money(s.amount, s.currency)}  ${s.mode} mode, expires ${time(s.expiresAt)}`)
  },
})

export const closeCommands: Record<string, Command> = { cancel: close('cancel', 'canceled'), expire: close('expire', 'expired') }
