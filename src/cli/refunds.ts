/** `till refunds create`: refund a payment record, fully or partly. */
import { connectionHelp, API_OPTIONS, JSON_OPTION, id, integer, optionalString, type Group } from './args.js'
import { merchantApi } from './http.js'
import { money, print, printJson } from './output.js'

export const refunds: Group = {
  name: 'refunds',
  summary: 'refund a payment record',
  commands: {
    create: {
      summary: 'refund a payment record, fully or partly',
      help: `usage: till refunds create RECORD_ID [--amount N] [--reason TEXT] [--json]

Refunds the record (rec_…, as \`till sessions show\` names it): --amount in the currency's minor
unit, as the API takes it (1000 CNY is ¥10.00 CNY, 1000 JPY is ¥1,000 JPY), or everything still
refundable without it.

  --amount N        minor units; default: all that remains refundable
  --reason TEXT     at most 80 characters, kept with the refund
  --json            print Till's answer as JSON: the record with "refund"
${connectionHelp('api', 20)}

examples:
  till refunds create rec_7Hk3… --amount 1000 --reason damaged
  till refunds create rec_7Hk3…`,
      options: { ...API_OPTIONS, ...JSON_OPTION, amount: { type: 'string' }, reason: { type: 'string' } },
      positionals: ['RECORD_ID'],
      async run({ values, positionals }) {
        const recordId = id(positionals[0], 'rec', 'RECORD_ID')
        const amount = optionalString(values, 'amount')
        const reason = optionalString(values, 'reason')
        const r = await merchantApi(values).call((till) => till.refund({
          recordId, ...(amount === undefined ? {} : { amount: integer(amount, '--amount', 1, 99_999_999) }), ...(reason === undefined ? {} : { reason }),
        }))
        if (values.json) return printJson(r)
        print(`${r.refund.id}  ${r.refund.status}  ${money(r.refund.amount, r.currency)}`)
        print(`${r.id}  ${r.status}, refunded ${money(r.refundedAmount, r.currency)} of ${money(r.amount, r.currency)}`)
      },
    },
  },
}
