/** `till links create|list|get|update|deactivate`: the payment links of a key's merchant and mode (docs/integrate.md#payment-links). */
import type { Till } from '@till-payments/node'
import { CURRENCY_CODES } from '../domain/money.js'
import { connectionHelp, API_OPTIONS, JSON_OPTION, id, integer, oneOf, optionalString, usageError, type Command, type Group, type Values } from './args.js'
import { merchantApi } from './http.js'
import { money, print, printJson, table, time } from './output.js'
import { metadataOf } from './sessions.js'

type Link = Awaited<ReturnType<Till['paymentLinks']['retrieve']>>

const amountOf = (l: Link) => (l.amount !== null ? money(l.amount, l.currency) : `${money(l.minAmount!, l.currency)} to ${money(l.maxAmount!, l.currency)}`)
const paidOf = (l: Link) => (l.maxPayments === null ? String(l.paidCount) : `${l.paidCount}/${l.maxPayments}`)
const minor = (values: Values, flag: string) => {
  const v = optionalString(values, flag)
  return v === undefined ? undefined : integer(v, `--${flag}`, 1, 99_999_999)
}

function show(l: Link) {
  print(`${l.id}  ${l.active ? 'active' : 'inactive'}  ${amountOf(l)}  ${l.mode} mode`)
  print(`url: ${l.url}`)
  print(`paid: ${paidOf(l)}${l.expiresAt ? `, expires ${time(l.expiresAt)}` : ''}`)
  if (l.description) print(`description: ${l.description}`)
  for (const [k, v] of Object.entries(l.metadata)) print(`metadata ${k}: ${v}`)
}

const linkArg = (text: string) => id(text, 'plink', 'LINK_ID')
const CHANGE_OPTIONS = { description: { type: 'string' }, metadata: { type: 'string', multiple: true }, 'expires-at': { type: 'string' }, 'max-payments': { type: 'string' } } as const

/** The fields create and update share. */
function changes(values: Values) {
  const maxPayments = optionalString(values, 'max-payments')
  return {
    ...(optionalString(values, 'description') !== undefined ? { description: optionalString(values, 'description') } : {}),
    ...(metadataOf(values) ? { metadata: metadataOf(values) } : {}),
    ...(optionalString(values, 'expires-at') !== undefined ? { expiresAt: optionalString(values, 'expires-at') } : {}),
    ...(maxPayments !== undefined ? { maxPayments: integer(maxPayments, '--max-payments', 1, 1_000_000) } : {}),
  }
}

const done = (values: Values, l: Link) => (values.json ? printJson(l) : show(l))

const deactivate: Command = {
  summary: 'deactivate a link: its page makes no more sessions',
  help: `usage: till links deactivate LINK_ID [--json]\n\n${connectionHelp('api', 20)}`,
  options: { ...API_OPTIONS, ...JSON_OPTION },
  positionals: ['LINK_ID'],
  async run({ values, positionals: [linkId] }) {
    const l = await merchantApi(values).call((till) => till.paymentLinks.update(linkArg(linkId), { active: false }))
    return done(values, l)
  },
}

export const links: Group = {
  name: 'links',
  summary: 'payment links: pages that make a session for each buyer',
  commands: {
    create: {
      summary: 'create a payment link',
      help: `usage: till links create --currency CUR (--amount N | --min-amount N --max-amount N)
                         [--description TEXT] [--metadata KEY=VALUE]… [--expires-at TIME]
                         [--max-payments N] [--inactive] [--json]

Amounts are in the currency's minor units (9900 CNY is ¥99.00). --min-amount and --max-amount let
the buyer enter the amount on the link's page. Share the printed url, or its QR code (console).

  --currency CUR        ${CURRENCY_CODES.join(', ')}
  --amount N            a fixed amount
  --min-amount N        the least a buyer may enter
  --max-amount N        the most a buyer may enter
  --expires-at TIME     ISO 8601 with a zone; the page says the link has expired after it
  --max-payments N      paid sessions after which the link is used up
  --inactive            create it deactivated
${connectionHelp('api', 22)}

examples:
  till links create --currency CNY --amount 9900 --description "Green tea" --max-payments 50
  till links create --currency JPY --min-amount 500 --max-amount 50000`,
      options: {
        ...API_OPTIONS, ...JSON_OPTION, ...CHANGE_OPTIONS, currency: { type: 'string' }, amount: { type: 'string' },
        'min-amount': { type: 'string' }, 'max-amount': { type: 'string' }, inactive: { type: 'boolean' },
      },
      async run({ values }) {
        const currency = oneOf(optionalString(values, 'currency') ?? '', '--currency', CURRENCY_CODES)
        const amounts = { amount: minor(values, 'amount'), minAmount: minor(values, 'min-amount'), maxAmount: minor(values, 'max-amount') }
        if (amounts.amount === undefined && amounts.minAmount === undefined) throw usageError('give --amount, or --min-amount and --max-amount')
        const body = {
          currency,
          ...Object.fromEntries(Object.entries(amounts).filter(([, v]) => v !== undefined)),
          ...changes(values),
          ...(values.inactive ? { active: false } : {}),
        }
        return done(values, await merchantApi(values).call((till) => till.paymentLinks.create(body)))
      },
    },
    list: {
      summary: 'list payment links, newest first',
      help: `usage: till links list [--limit N] [--starting-after LINK_ID] [--json]\n\n${connectionHelp('api', 20)}`,
      options: { ...API_OPTIONS, ...JSON_OPTION, limit: { type: 'string' }, 'starting-after': { type: 'string' } },
      async run({ values }) {
        const limit = optionalString(values, 'limit')
        const after = optionalString(values, 'starting-after')
        const page = await merchantApi(values).call((till) => till.paymentLinks.list({
          ...(limit !== undefined ? { limit: integer(limit, '--limit', 1, 100) } : {}),
          ...(after !== undefined ? { starting_after: linkArg(after) } : {}),
        }))
        if (values.json) return printJson({ data: page.data, hasMore: page.hasMore })
        if (page.data.length === 0) return print('No payment links.')
        print(table(['CREATED', 'ID', 'STATE', 'AMOUNT', 'PAID', 'URL'], page.data.map((l) => [
          time(l.createdAt), l.id, l.active ? 'active' : 'inactive', amountOf(l), paidOf(l), l.url,
        ])))
        if (page.hasMore) print(`more: --starting-after ${page.data.at(-1)!.id}`)
      },
    },
    get: {
      summary: 'show one payment link',
      help: `usage: till links get LINK_ID [--json]\n\n${connectionHelp('api', 20)}`,
      options: { ...API_OPTIONS, ...JSON_OPTION },
      positionals: ['LINK_ID'],
      async run({ values, positionals: [linkId] }) {
        return done(values, await merchantApi(values).call((till) => till.paymentLinks.retrieve(linkArg(linkId))))
      },
    },
    update: {
      summary: 'change a link\'s description, metadata, expiry or maximum, or activate it',
      help: `usage: till links update LINK_ID [--description TEXT] [--metadata KEY=VALUE]… [--expires-at TIME]
                       [--max-payments N] [--active] [--json]

Only what is given changes; amounts and currency never do.
${connectionHelp('api', 20)}`,
      options: { ...API_OPTIONS, ...JSON_OPTION, ...CHANGE_OPTIONS, active: { type: 'boolean' } },
      positionals: ['LINK_ID'],
      async run({ values, positionals: [linkId] }) {
        const body = { ...changes(values), ...(values.active ? { active: true } : {}) }
        return done(values, await merchantApi(values).call((till) => till.paymentLinks.update(linkArg(linkId), body)))
      },
    },
    deactivate,
  },
}
