/** Process entry: config, database, HTTP server, jobs, signals. */
import pino from 'pino'
import { buildApp } from './app.js'
import { loadConfig } from './config.js'
import { createDeps } from './deps.js'
import { startJobs } from './jobs/runner.js'
import { loadSecretsKey } from './security/secret-box.js'
import { bootstrapDemo } from './services/merchants.js'
import { openPool, runMigrations } from './store/db.js'
import { startEmbedded, StartupError, type EmbeddedPostgres } from './store/embedded.js'

/** Set while starting: undoes what is up so far, so a failed start leaves no embedded cluster running. */
let undoStart: (() => Promise<void>) | null = null

export async function main() {
  const config = loadConfig()
  const log = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.password', '*.credentials'] })

  let embedded: EmbeddedPostgres | null = null
  if (!config.databaseUrl) {
    embedded = await startEmbedded(config.dataDir, { info: (m) => log.info(m), warn: (m) => log.warn(m) })
  }
  const database = openPool(config.databaseUrl ?? embedded!.connection, Number(process.env.DB_POOL_SIZE) || 10)
  undoStart = async () => {
    await database.close().catch(() => {})
    await embedded?.stop()
  }
  await runMigrations(database.pool)

  const secrets = await loadSecretsKey(config.secretsKey, config.dataDir)
  if (secrets.generated) log.warn(`generated a secrets key into ${config.dataDir}/secrets.key: set SECRETS_KEY to share it between instances`)
  const deps = createDeps(config, database.db, secrets.key, log)

  const demo = await bootstrapDemo(deps)
  if (demo) {
    // Printed once, on the first start against an empty database; only hashes are stored.
    process.stdout.write(
      `\nCreated merchant "Demo" (${demo.id}).\n  test key: ${demo.keys.test}\n  console login: ${demo.email} / ${demo.password}\nThese are shown once. Try:\n` +
      `  curl -s ${config.baseUrl}/api/v1/checkout -H 'Authorization: Bearer ${demo.keys.test}' -H 'Content-Type: application/json' -d '{"amount":9900,"currency":"CNY"}'\n\n`,
    )
  }

  const app = await buildApp(deps, { logger: { level: config.logLevel } })
  await app.listen({ port: config.port, host: config.host })
  undoStart = null
  const jobs = config.jobsEnabled ? startJobs(deps) : null

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info(`${signal}: finishing in-flight requests`)
    await app.close()
    await jobs?.stop()
    await database.close()
    await embedded?.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

main().catch(async (err) => {
  console.error(err instanceof StartupError ? err.message : err)
  await undoStart?.().catch((e) => console.error(e))
  process.exit(1)
})
