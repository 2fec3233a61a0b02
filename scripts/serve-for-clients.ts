/**
 * A real Till for the Python and Go client libraries' integration tests: the real app on a fresh
 * database cloned from the test template (TEST_DATABASE_URL, as `npm test` sets it), listening on
 * a loopback port, with its background jobs running so webhooks are delivered. Prints one JSON line
 * on stdout when ready:
 *   {"baseUrl":"http://127.0.0.1:…","testKey":"sk_test_…","liveKey":"sk_live_…","adminToken":"…"}
 * and serves until stdin closes or it gets SIGTERM/SIGINT, then drops its database.
 */
import { randomBytes } from 'node:crypto'
import { buildApp } from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'
import { createDeps } from '../src/deps.js'
import { startJobs } from '../src/jobs/runner.js'
import { createMerchant } from '../src/services/merchants.js'
import { openPool } from '../src/store/db.js'
import { freshDatabase } from '../test/helpers/db.js'

const ADMIN_TOKEN = randomBytes(16).toString('hex')
const silent = { info() {}, warn() {}, error: (m: unknown) => console.error(m) }

const db = await freshDatabase()
const database = openPool(db.url, 10)
// The client tests' webhook receivers listen on loopback: WEBHOOK_ALLOW_PRIVATE=1, said rather than left to the default.
const config: Config = { ...loadConfig({}), port: 0, adminToken: ADMIN_TOKEN, rateLimitPerSecond: 10_000, webhookAllowPrivate: true }
const deps = createDeps(config, database.db, randomBytes(32), silent)
const app = await buildApp(deps)
const address = await app.listen({ port: 0, host: '127.0.0.1' })
config.baseUrl = address
const jobs = startJobs(deps)
const merchant = await createMerchant(deps, { name: 'Client tests' })

let stopping = false
async function stop() {
  if (stopping) return
  stopping = true
  await app.close()
  await jobs.stop()
  await database.close()
  await db.drop()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
process.stdin.on('end', () => void stop())
process.stdin.on('close', () => void stop())
process.stdin.resume()

process.stdout.write(JSON.stringify({ baseUrl: address, testKey: merchant.keys.test, liveKey: merchant.keys.live, adminToken: ADMIN_TOKEN }) + '\n')
