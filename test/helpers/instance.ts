/**
 * A second Till instance on the same PostgreSQL database as a test app: its own pool, Deps,
 * session signals and HTTP server, sharing only the database and the secrets (as instances that
 * share DATABASE_URL and SECRETS_KEY do). Closed when the test ends.
 */
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createDeps } from '../../src/deps.js'
import type { Deps } from '../../src/services/deps.js'
import type { TestApp } from './app.js'
import { openTestPool } from './db.js'

export interface Instance {
  app: FastifyInstance
  deps: Deps
  baseUrl: string
}

const silent = { info() {}, warn() {}, error() {} }

export async function startSecondInstance(t: TestContext, ta: TestApp): Promise<Instance> {
  const database = openTestPool(ta.databaseUrl, 10)
  const config = { ...ta.deps.config }
  const deps = createDeps(config, database.db, Buffer.alloc(32), silent, ta.clock)
  // The same SECRETS_KEY as the first instance: its box and the mock provider's signing key.
  deps.box = ta.deps.box
  deps.mockConfig = ta.deps.mockConfig
  const app = await buildApp(deps)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  config.baseUrl = address
  t.after(async () => {
    await app.close()
    await database.close()
  })
  return { app, deps, baseUrl: address }
}
