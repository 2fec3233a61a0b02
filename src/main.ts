/** Process entry: config, database, HTTP server, jobs, signals. */
import net from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import { loadConfig, type Config } from './config.js'
import { createDeps } from './deps.js'
import { startJobs } from './jobs/runner.js'
import { chooseLogFormat, createLogger } from './logging.js'
import { openMetricsWarning } from './metrics/route.js'
import { loadSecretsKey } from './security/secret-box.js'
import { demoBlock } from './first-start.js'
import { bootstrapDemo } from './services/merchants.js'
import { openPool, runMigrations } from './store/db.js'
import { startEmbedded, StartupError, type EmbeddedPostgres } from './store/embedded.js'
import { startTracing } from './tracing/setup.js'

/** Set while starting: undoes what is up so far, so a failed start leaves no embedded cluster running. */
let undoStart: (() => Promise<void>) | null = null

export async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel, chooseLogFormat(process.env, process.stdout.isTTY))
  const stopTracing = await startTracing()
  if (stopTracing) log.info('tracing on: spans sent as the OTEL_* variables say')
  const metricsOpen = openMetricsWarning(config)
  if (metricsOpen) log.warn(metricsOpen)

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
  await runMigrations(database.pool, { log: { info: (m) => log.info(m), warn: (m) => log.warn(m) } })

  const secrets = await loadSecretsKey(config.secretsKey, config.dataDir)
  if (secrets.generated) log.warn(`generated a secrets key into ${config.dataDir}/secrets.key: set SECRETS_KEY to share it between instances`)
  const deps = createDeps(config, database.db, secrets.key, log)

  // Before the Demo merchant: a start that cannot listen must not spend the key it shows only once.
  await checkPortFree(config)
  const demo = await bootstrapDemo(deps)
  if (demo) process.stdout.write(demoBlock(demo, config.baseUrl))

  const app = await buildApp(deps, { loggerInstance: log })
  let jobs: ReturnType<typeof startJobs> | null = null
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info(`${signal}: finishing in-flight requests`)
    await app.close()
    await jobs?.stop()
    await database.close()
    await embedded?.stop()
    await stopTracing?.().catch((err) => log.warn({ err }, 'tracing: spans not flushed'))
    process.exit(0)
  }
  // Registered before listening: a stop sent as soon as the port answers is always a graceful one.
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  await listen(app, config)
  undoStart = null
  if (config.jobsEnabled && !stopping) jobs = startJobs(deps)
}

/** A port already taken, as one line saying which and how to pick another; other errors as they are. */
function portError(e: unknown, config: Config): unknown {
  if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') return e
  const other = config.port < 65535 ? config.port + 1 : config.port - 1
  return new StartupError(`port ${config.port} on ${config.host} is in use by another program: stop it, or start Till on another port with PORT (e.g. PORT=${other} npm start)`)
}

/** Binds HOST:PORT for a moment: fails now, as listening would, if another program holds it. */
async function checkPortFree(config: Config) {
  const probe = net.createServer()
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(config.port, config.host, resolve)).catch((e) => {
    throw portError(e, config)
  })
  await new Promise((resolve) => probe.close(resolve))
}

async function listen(app: FastifyInstance, config: Config) {
  await app.listen({ port: config.port, host: config.host }).catch((e) => {
    throw portError(e, config)
  })
}

main().catch(async (err) => {
  console.error(err instanceof StartupError ? err.message : err)
  await undoStart?.().catch((e) => console.error(e))
  process.exit(1)
})
