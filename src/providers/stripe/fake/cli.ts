/**
 * `till fake stripe`: runs the local Stripe fake for offline testing, prints the key it accepts,
 * how to point a Till provider configuration at it, and how to add Till's webhook endpoint (the
 * Dashboard's step). The account and its endpoints are kept in a state file so a restart keeps them valid.
 */
import { parseArgs } from 'node:util'
import { fakeOptions, readState, untilInterrupted, writeState } from '../../fake-kit/launch.js'
import type { FakeCommand } from '../../module.js'
import type { Endpoint } from './store.js'
import { startStripeFake } from './index.js'

const USAGE = `usage: till fake stripe [--port 8094] [--host 127.0.0.1] [--webhook-url URL]
                       [--time-factor 1] [--state FILE] [--json]

  --port         port to listen on (loopback only)                        default 8094
  --webhook-url  an endpoint for the account's events: Till's {BASE_URL}/hooks/stripe/{configId}
                 (also POST /__fake/stripe/webhooks {"url"} once the configuration exists)
  --time-factor  scales the webhook retry schedule (0.01: 1 min becomes 600 ms)
  --state        where the generated account is kept          default $DATA_DIR/fake-stripe.json
  --json         print the key and endpoints as one JSON object and nothing else`

interface State {
  secretKey: string
  endpoints: Endpoint[]
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...fakeOptions('8094', 'fake-stripe.json'), 'webhook-url': { type: 'string', multiple: true, default: [] } } })
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  const statePath = values.state!
  const saved = readState<State>(statePath)
  const fake = await startStripeFake({ host: values.host, port: Number(values.port), timeFactor: Number(values['time-factor']), autoRunMs: 200 })
  const { secretKey } = fake.addAccount(saved ? { secretKey: saved.secretKey } : {})
  const account = fake.store.accounts.get(secretKey)!
  account.endpoints.push(...(saved?.endpoints ?? []))
  const secret = () => account.endpoints[0]?.secret ?? 'whsec_… (add an endpoint first)'
  for (const url of values['webhook-url']!) {
    const res = await fetch(`${fake.url}/__fake/stripe/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, secretKey }) })
    if (!res.ok) throw new Error(`could not add the endpoint ${url}`)
  }
  const save = () => writeState(statePath, { secretKey, endpoints: account.endpoints } satisfies State)
  save()

  const config = { provider: 'stripe', label: 'fake', credentials: { secretKey, webhookSecret: secret() }, settings: { apiBase: fake.url } }
  if (values.json) {
    console.log(JSON.stringify({ url: fake.url, ...config, endpoints: account.endpoints }))
  } else {
    console.log(`Fake Stripe listening on ${fake.url} (test mode; account kept in ${statePath})

1. Add Till's endpoint (Stripe: Developers → Webhooks → Add endpoint); the answer holds its signing secret:

  curl -s ${fake.url}/__fake/stripe/webhooks -H 'Content-Type: application/json' \\
    -d '{"url": "'"$TILL_URL"'/hooks/stripe/pc_…"}'

2. Configure Till (admin API) with that secret:

  curl -s "$TILL_URL/admin/v1/merchants/$MERCHANT_ID/provider_configs" \\
    -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \\
    -d '${JSON.stringify({ ...config, credentials: { secretKey, webhookSecret: 'whsec_…' } })}'

Then create a live session with "providerHints": {"stripe": "fake"} (CNY, USD, HKD, JPY or EUR).

Play the buyer:      ${fake.url}/__fake/stripe   (4242 4242 4242 4242 pays; 4000 0000 0000 0002 declined; 4000 0027 6000 3184 asks for 3-D Secure)
Knobs (JSON POST):   ${fake.url}/__fake/stripe/complete {"session_id"} · /pay-later · /expire · /refund-outcome · /dispute {"payment_intent"}
                     /dispute-close · /roll-secret · /notifications · /bad-signature · /errors · /settings
Inspect:             GET ${fake.url}/__fake/stripe/deliveries · /requests · /events · /sessions/<id>`)
  }

  await untilInterrupted()
  save()
  await fake.close()
  return 0
}

export const command: FakeCommand = { usage: USAGE, run }
