/**
 * Once per test run: the loopback port to the test PostgreSQL for Medusa (DB_* variables, read by
 * @medusajs/test-utils when it is loaded), one real Till (TILL_* variables), and its merchant's live
 * Stripe configuration on the Stripe fake (STRIPE_* variables).
 */
import { forwardPostgres } from './postgres-tcp'
import { configureStripe } from './stripe'
import { startTill } from './till'

export default async function globalSetup() {
  if (!process.env.TEST_DATABASE_URL) {
    throw new Error('TEST_DATABASE_URL is not set: run bash scripts/medusa.sh from the repository, which starts the test PostgreSQL')
  }
  const forward = await forwardPostgres(process.env.TEST_DATABASE_URL)
  Object.assign(process.env, {
    DB_HOST: 'localhost', // "localhost" in the URL also tells the runner not to ask for TLS
    DB_PORT: String(forward.port),
    DB_USERNAME: forward.user,
    DB_PASSWORD: forward.password,
    MEDUSA_DISABLE_TELEMETRY: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // Medusa's logger: no line per migration
  })
  const till = await startTill()
  Object.assign(process.env, { TILL_BASE_URL: till.baseUrl, TILL_TEST_KEY: till.testKey, TILL_LIVE_KEY: till.liveKey })
  Object.assign(process.env, { STRIPE_FAKE_URL: till.stripeFakeUrl, STRIPE_SECRET_KEY: await configureStripe(till) })
  ;(globalThis as { __tillTestServers?: unknown }).__tillTestServers = { forward, till }
}
