/** Process entry: config, database, HTTP server, jobs, signals. */
import { buildApp } from './app.js'
import { loadConfig } from './config.js'
import { createDeps } from './deps.js'
import { startJobs } from './jobs/runner.js'
import { chooseLogFormat, createLogger } from './logging.js'
import { openMetricsWarning } from './metrics/route.js'
import { loadSecretsKey } from './security/secret-box.js'
import { bootstrapDemo } from './services/merchants.js'
import { openPool, runMigrations } from './store/db.js'
import { startEmbedded, StartupError, type EmbeddedPostgres } from './store/embedded.js'

/** Set while starting: undoes what is up so far, so a failed start leaves no embedded cluster running. */
let undoStart: (() => Promise<void>) | null = null

export async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel, chooseLogFormat(process.env, process.stdout.isTTY))

  let embedded: EmbeddedPostgres | null = null
  if (!config.databaseUrl) {
    embedded = await startEmbedded(config.dataDir, { info: (m) => log.info(m), warn: (m) => log.warn(m) })
  }
  const database = openPool(config.databaseUrl ?? embedded!.connection, Number(process.env.DB_POOL_SIZE) || 10, {
    direct: config.databaseDirectUrl ?? undefined,
    statements: config.databaseStatements,
  })
  undoStart = async () => {
    await database.close().catch(() => {})
    await embedded?.stop()
  }
  await runMigrations(database.pool)

  const secrets = await loadSecretsKey(config.secretsKey, config.dataDir)
  if (secrets.generated) log.warn(`generated a secrets key into ${config.dataDir}/secrets.key: set SECRETS_KEY to share it between instances`)
  const deps = createDeps(config, database.db, secrets.key, log)

  const demo = await bootstrapDemo(deps)
  if (demo) process.stdout.write(demoBlock(demo, config.baseUrl))

  const app = await buildApp(deps, { loggerInstance: log })
  await app.listen({ port: config.port, host: config.host })
  const metricsOpen = openMetricsWarning(config)
  if (metricsOpen) log.warn(metricsOpen)
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

/**
 * The Demo merchant's key and console login, printed once on the first start against an empty
 * database (only hashes are stored): a block of its own between rules, not a log line, so it is
 * seen among the log lines and no log collector keeps it.
 */
function demoBlock(demo: { id: string; email: string | null; password: string; keys: { test: string } }, baseUrl: string): string {
  const rule = '─'.repeat(72)
  return [
    '', rule,
    `  Created merchant "Demo" (${demo.id}). Shown this once only:`,
    '',
    `    test key: ${demo.keys.test}`,
    `    console login: ${demo.email} / ${demo.password}`,
    '',
    '  Try it:',
    `    curl -s ${baseUrl}/api/v1/checkout -H 'Authorization: Bearer ${demo.keys.test}' \\`,
    `      -H 'Content-Type: application/json' -d '{"amount":9900,"currency":"CNY"}'`,
    '',
    '  Lost the key? Start Till with ADMIN_TOKEN set, then make another:',
    `    ADMIN_TOKEN=… npx till keys create --merchant ${demo.id} --mode test`,
    `  Docs: ${baseUrl}/docs`,
    rule, '', '',
  ].join('\n')
}

main().catch(async (err) => {
  console.error(err instanceof StartupError ? err.message : err)
  await undoStart?.().catch((e) => console.error(e))
  process.exit(1)
})
