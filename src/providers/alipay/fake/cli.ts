/**
 * `till fake alipay`: runs the local Alipay gateway fake for offline testing, prints the app
 * credentials it accepts (public-key or certificate mode) and how to point a Till provider
 * configuration at it. Its keys and certificates are kept in a state file so a restart does not
 * invalidate the configuration.
 */
import { parseArgs } from 'node:util'
import { credentialsText, fakeOptions, readState, untilInterrupted, writeState } from '../../fake-kit/launch.js'
import type { FakeCommand } from '../../module.js'
import { startAlipayFake, type AppCredentials, type SavedIdentity } from './index.js'

const USAGE = `usage: till fake alipay [--port 8093] [--host 127.0.0.1] [--mode publicKey|cert]
                       [--time-factor 1] [--state FILE] [--json]

  --port         port to listen on (loopback only)                      default 8093
  --mode         the app's key mode: Alipay's public key (普通公钥), or certificates
                 (公钥证书: app, Alipay and root certificates, serials on every request)
  --time-factor  scales the notification retry schedule (0.001: 4 minutes become 240 ms)
  --state        where the generated app, keys and certificates are kept   default $DATA_DIR/fake-alipay.json
  --json         print the configuration as one JSON object and nothing else`

interface State {
  identity: SavedIdentity
  app: AppCredentials
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...fakeOptions('8093', 'fake-alipay.json'), mode: { type: 'string', default: 'publicKey' } } })
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  const mode = values.mode
  if (mode !== 'publicKey' && mode !== 'cert') throw new Error('--mode must be publicKey or cert')
  const statePath = values.state!
  const saved = readState<State>(statePath)
  const fake = await startAlipayFake({ host: values.host, port: Number(values.port), timeFactor: Number(values['time-factor']), autoRunMs: 200, identity: saved?.identity })
  // The same app serves either mode: this run's flag decides which; a certificate issued once is kept.
  const app = fake.addApp({ mode, ...(saved ? { appId: saved.app.appId, sellerId: saved.app.sellerId, privateKey: saved.app.privateKey, appCertificate: saved.app.appCertificate } : {}) })
  writeState(statePath, { identity: fake.savedIdentity(), app: { ...saved?.app, ...app } } satisfies State)

  // In the names of Till's alipay configuration (src/providers/alipay/module.ts).
  const credentials = app.appCertificate
    ? { appId: app.appId, privateKey: app.privateKey, appCert: app.appCertificate, alipayCert: app.alipayCertificate, alipayRootCert: app.alipayRootCertificate }
    : { appId: app.appId, privateKey: app.privateKey, alipayPublicKey: app.alipayPublicKey }
  const sellerId = app.sellerId
  const config = { provider: 'alipay', label: 'fake', credentials, settings: { apiBase: fake.url } }
  if (values.json) {
    console.log(JSON.stringify({ url: fake.url, sellerId, ...config }))
  } else {
    console.log(`Fake Alipay gateway on ${fake.gateway} (${mode === 'cert' ? 'certificate' : 'public-key'} mode, app ${app.appId}, seller ${sellerId}; keys kept in ${statePath})

Credentials (the console's form takes each PEM pasted or as its file):
${credentialsText(credentials, statePath, 'fake-alipay')}

Or configure Till with the admin API (BASE_URL must be reachable from this machine, e.g. http://localhost:8080):

  curl -s "$TILL_URL/admin/v1/merchants/$MERCHANT_ID/provider_configs" \\
    -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \\
    -d '${JSON.stringify(config)}'

Then create a live CNY session with "providerHints": {"alipay": "fake"}.

Play the buyer:      ${fake.url}/__fake/alipay            (open orders: scan a QR code, pay on the cashier)
Knobs (JSON POST):   ${fake.url}/__fake/alipay/pay {"out_trade_no"} · /scan · /fail · /expire · /finish · /tamper · /resend
                     /notifications {"mode":"drop|duplicate|reorder|delayed"} · /advance {"seconds"|"next":true} · /errors · /settings
Inspect:             GET ${fake.url}/__fake/alipay/deliveries · /requests · /orders/<out_trade_no> · /identity`)
  }

  await untilInterrupted()
  await fake.close()
  return 0
}

export const command: FakeCommand = { usage: USAGE, run }
