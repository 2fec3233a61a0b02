/**
 * A real Till for the Python and Go client libraries' integration tests: the real app on a fresh
 * database cloned from the test template (TEST_DATABASE_URL, as `npm test` sets it), listening on
 * a loopback port, with its background jobs running so webhooks are delivered. Prints one JSON line
 * on stdout when ready:
 *   {"baseUrl":"http://127.0.0.1:…","testKey":"sk_test_…","liveKey":"sk_live_…","adminToken":"…","merchantId":"mer_…"}
 * and serves until stdin closes or it gets SIGTERM/SIGINT, then drops its database.
 *
 * --stripe-fake: also runs the Stripe fake (`till fake stripe`) on loopback, with its retries and
 * refund settlement on a timer, and adds "stripeFakeUrl" to the line; the caller configures the
 * merchant's live Stripe against it as a merchant would (an account at the fake, then the admin API,
 * where Till adds its own webhook endpoint at Stripe: clients/medusa/test/support/stripe.ts).
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'
import { createDeps } from '../src/deps.js'
import { startJobs } from '../src/jobs/runner.js'
import { startStripeFake } from '../src/providers/stripe/fake/index.js'
import { createMerchant } from '../src/services/merchants.js'
import { openPool } from '../src/store/db.js'
import { freshDatabase } from '../test/helpers/db.js'

const { values: flags } = parseArgs({ options: { 'stripe-fake': { type: 'boolean', default: false } } })
const ADMIN_TOKEN = randomBytes(16).toString('hex')
const silent = { info() {}, warn() {}, error: (m: unknown) => console.error(m) }

const db = await freshDatabase()
const database = openPool(db.url, 10)
// The client tests' webhook receivers listen on loopback: WEBHOOK_ALLOW_PRIVATE=1, said rather than left to the default;
// so does the Stripe fake: PROVIDER_ALLOW_PRIVATE=1 when it runs.
const config: Config = {
  ...loadConfig({}), port: 0, adminToken: ADMIN_TOKEN, rateLimitPerSecond: 10_000, webhookAllowPrivate: true, providerAllowPrivate: flags['stripe-fake']!,
}
const deps = createDeps(config, database.db, randomBytes(32), silent)
const app = await buildApp(deps)
const address = await app.listen({ port: 0, host: '127.0.0.1' })
config.baseUrl = address
const jobs = startJobs(deps)
const merchant = await createMerchant(deps, { name: 'Client tests' })
const stripeFake = flags['stripe-fake'] ? await startStripeFake({ autoRunMs: 200 }) : undefined

let stopping = false
async function stop() {
  if (stopping) return
  stopping = true
  await app.close()
  await jobs.stop()
  await stripeFake?.close()
  await database.close()
  await db.drop()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
process.stdin.on('end', () => void stop())
process.stdin.on('close', () => void stop())
process.stdin.resume()

process.stdout.write(JSON.stringify({
  baseUrl: address, testKey: merchant.keys.test, liveKey: merchant.keys.live, adminToken: ADMIN_TOKEN, merchantId: merchant.id,
  ...(stripeFake && { stripeFakeUrl: stripeFake.url }),
}) + '\n')
