/**
 * `till fake wechat`: runs the local WeChat Pay v3 fake for offline testing, prints the merchant
 * credentials it accepts and how to point a Till provider configuration at it. Its keys are kept
 * in a state file so a restart does not invalidate the configuration.
 */
import { parseArgs } from 'node:util'
import { credentialsText, fakeOptions, readState, untilInterrupted, writeState } from '../../fake-kit/launch.js'
import type { FakeCommand } from '../../module.js'
import { CROSS_BORDER_CURRENCIES, type CrossBorderCurrency } from '../service.js'
import { startWechatFake, type MerchantCredentials } from './index.js'

const USAGE = `usage: till fake wechat [--port 8091] [--host 127.0.0.1] [--mode publicKey|platformCert]
                       [--service mainland|cross_border] [--settlement-currency HKD|JPY|USD|EUR]
                       [--time-factor 1] [--state FILE] [--json]

  --port         port to listen on (loopback only)                      default 8091
  --mode         how the fake signs: WeChat Pay public key (PUB_KEY_ID_…) or platform certificates
  --service      the merchant's WeChat Pay service: mainland (CNY, /v3/pay) or cross_border
                 (WeChat Pay Global, /v3/global: prices listed in the settlement currency, paid in CNY)
  --settlement-currency  cross_border only: the currency the merchant settles and lists in   default HKD
  --time-factor  scales the notification retry schedule (0.01: 15 s becomes 150 ms)
  --state        where the generated merchant and signing keys are kept   default $DATA_DIR/fake-wechat.json
  --json         print the credentials as one JSON object and nothing else`

interface State {
  publicKeyId: string
  platformPrivateKey: string
  merchant: MerchantCredentials
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...fakeOptions('8091', 'fake-wechat.json'),
      mode: { type: 'string', default: 'publicKey' },
      service: { type: 'string', default: 'mainland' },
      'settlement-currency': { type: 'string', default: 'HKD' },
    },
  })
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  if (values.mode !== 'publicKey' && values.mode !== 'platformCert') throw new Error('--mode must be publicKey or platformCert')
  if (values.service !== 'mainland' && values.service !== 'cross_border') throw new Error('--service must be mainland or cross_border')
  const currency = values['settlement-currency']!
  if (!CROSS_BORDER_CURRENCIES.includes(currency as CrossBorderCurrency)) throw new Error(`--settlement-currency must be one of ${CROSS_BORDER_CURRENCIES.join(', ')}`)
  const crossBorder = values.service === 'cross_border'
  const statePath = values.state!
  const saved = readState<State>(statePath)

  const fake = await startWechatFake({
    host: values.host,
    port: Number(values.port),
    mode: values.mode,
    timeFactor: Number(values['time-factor']),
    autoRunMs: 200,
    identity: saved ? { publicKeyId: saved.publicKeyId, privateKeyPem: saved.platformPrivateKey } : undefined,
  })
  // The platform key fields follow the mode of this run, not of the one that saved the state.
  const merchant = saved ? { ...saved.merchant, platformPublicKeyId: undefined, platformPublicKey: undefined } : {}
  // The same merchant keys serve either service: the flags of this run decide which one it is opened for.
  const creds = fake.addMerchant(merchant, crossBorder ? { service: 'cross_border', settlementCurrency: currency } : {})
  if (!saved) {
    const state: State = {
      publicKeyId: fake.store.platform.publicKeyId,
      platformPrivateKey: fake.store.platform.key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      merchant: creds,
    }
    writeState(statePath, state)
  }

  const settings = crossBorder
    ? { apiBase: fake.url, service: 'cross_border', settlementCurrency: currency, merchantCategoryCode: '5999' }
    : { apiBase: fake.url }
  const config = { provider: 'wechat', label: 'fake', credentials: creds, settings }
  if (values.json) {
    console.log(JSON.stringify({ url: fake.url, ...config }))
  } else {
    console.log(`Fake WeChat Pay v3 listening on ${fake.url} (${values.mode} mode, ${crossBorder ? `cross-border service settling in ${currency}` : 'mainland service'}; keys kept in ${statePath})

Credentials (the console's form takes each PEM pasted or as its file):
${credentialsText(creds as unknown as Record<string, unknown>, statePath, 'fake-wechat')}

Or configure Till with the admin API (BASE_URL must be reachable from this machine, e.g. http://localhost:8080):

  curl -s "$TILL_URL/admin/v1/merchants/$MERCHANT_ID/provider_configs" \\
    -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \\
    -d '${JSON.stringify(config)}'

Then create a live session with "providerHints": {"wechat": "fake"}.

Play the customer:   ${fake.url}/__fake/wechat            (open Native orders: "scan" and pay)
Knobs (JSON POST):   ${fake.url}/__fake/wechat/pay {"out_trade_no"} · /fail · /expire · /refund-outcome
                     /notifications {"mode":"drop|duplicate|reorder|delayed"} · /probe · /clock-skew · /errors · /mode
                     /rates {"HKD": 0.92} (cross-border: CNY per unit of the listed currency)
Inspect:             GET ${fake.url}/__fake/wechat/deliveries · /requests · /orders/<out_trade_no>`)
  }

  await untilInterrupted()
  await fake.close()
  return 0
}

export const command: FakeCommand = { usage: USAGE, run }
