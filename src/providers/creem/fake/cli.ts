/**
 * `till fake creem`: runs the local Creem fake for offline testing, prints the credentials it
 * accepts, how to point a Till provider configuration at it, and how to register Till's webhook
 * URL (Creem's dashboard step). The account is kept in a state file so a restart keeps it valid.
 */
import { parseArgs } from 'node:util'
import { fakeOptions, readState, untilInterrupted, writeState } from '../../fake-kit/launch.js'
import type { FakeCommand } from '../../module.js'
import { startCreemFake } from './index.js'

const USAGE = `usage: till fake creem [--port 8092] [--host 127.0.0.1] [--webhook-url URL]
                      [--time-factor 1] [--state FILE] [--json]

  --port         port to listen on (loopback only)                        default 8092
  --webhook-url  where the account's webhooks go: Till's {BASE_URL}/hooks/creem/{configId}
                 (repeatable; also POST /__fake/creem/webhooks {"url"} once the configuration exists)
  --time-factor  scales the webhook retry schedule (0.01: 30 s becomes 300 ms)
  --state        where the generated account is kept          default $DATA_DIR/fake-creem.json
  --json         print the credentials as one JSON object and nothing else`

interface State {
  apiKey: string
  webhookSecret: string
  webhookUrls: string[]
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...fakeOptions('8092', 'fake-creem.json'), 'webhook-url': { type: 'string', multiple: true, default: [] } },
  })
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  const statePath = values.state!
  const saved = readState<State>(statePath)
  const fake = await startCreemFake({ host: values.host, port: Number(values.port), timeFactor: Number(values['time-factor']), autoRunMs: 200 })
  const creds = fake.addAccount(saved ? { apiKey: saved.apiKey, webhookSecret: saved.webhookSecret } : {})
  for (const url of [...(saved?.webhookUrls ?? []), ...values['webhook-url']!]) fake.addAccount({ apiKey: creds.apiKey, webhookUrl: url })
  const save = () => writeState(statePath, { ...creds, webhookUrls: fake.store.accounts.get(creds.apiKey)!.webhookUrls } satisfies State)
  save()

  const config = { provider: 'creem', label: 'fake', credentials: creds, settings: { apiBase: fake.url } }
  if (values.json) {
    console.log(JSON.stringify({ url: fake.url, ...config, webhookUrls: fake.store.accounts.get(creds.apiKey)!.webhookUrls }))
  } else {
    console.log(`Fake Creem listening on ${fake.url} (test mode; account kept in ${statePath})

1. Configure Till (admin API):

  curl -s "$TILL_URL/admin/v1/merchants/$MERCHANT_ID/provider_configs" \\
    -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \\
    -d '${JSON.stringify(config)}'

2. Register Till's webhook URL with the fake (Creem: Developers → Webhooks), using the id answered above:

  curl -s ${fake.url}/__fake/creem/webhooks -H 'Content-Type: application/json' \\
    -d '{"url": "'"$TILL_URL"'/hooks/creem/pc_…"}'

Then create a live session with "providerHints": {"creem": "fake"} (EUR or USD, at least 100).

Play the customer:   ${fake.url}/__fake/creem            (open checkouts; card 4242 4242 4242 4242 pays)
Knobs (JSON POST):   ${fake.url}/__fake/creem/complete {"checkout_id"} · /fail · /expire · /refund-outcome
                     /dashboard-refund {"transaction_id","amount"?} · /dispute · /notifications · /bad-signature · /errors
Inspect:             GET ${fake.url}/__fake/creem/deliveries · /requests · /events · /checkouts/<id>`)
  }

  await untilInterrupted()
  // Webhook URLs registered through the knob while running are kept for the next start.
  save()
  await fake.close()
  return 0
}

export const command: FakeCommand = { usage: USAGE, run }
