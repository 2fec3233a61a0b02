/**
 * The whole stack of the failover stage and bench: the cluster (cluster.ts), a database `till` on
 * it, a webhook endpoint (sink.ts) and two Till processes through HAProxy, with the Demo merchant's
 * test key and a pool of our own on the primary (`store`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { openPool, type Database } from '../../src/store/db.js'
import { api, demoKey, startTill, type Till } from '../helpers/process.js'
import { Cluster } from './cluster.js'
import { startWebhookSink, type WebhookSink } from './sink.js'

export const FAILOVER_DIR = process.env.FAILOVER_DIR ?? path.resolve('.test-data/failover')
export const SECRETS_KEY = 'ef'.repeat(32)

export interface Stack {
  cluster: Cluster
  tills: Till[]
  key: string
  store: Database
  sink: WebhookSink
  stop(): Promise<void>
}

export async function startStack(): Promise<Stack> {
  const cluster = new Cluster(path.join(FAILOVER_DIR, 'cluster'), process.env.PATRONI_BIN ?? path.join(FAILOVER_DIR, 'venv/bin/patroni'))
  await cluster.start()
  const admin = new pg.Client({ connectionString: cluster.url() })
  await admin.connect()
  await admin.query('create database till')
  await admin.end()
  const store = openPool(cluster.url('till'), 2)
  const sink = await startWebhookSink()
  // Both of Till's URLs through HAProxy: LISTEN and the migrations follow the primary too.
  const env = {
    DATABASE_URL: cluster.url('till'), DATABASE_DIRECT_URL: cluster.url('till'), SECRETS_KEY,
    WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_SECOND: '100000', LOG_LEVEL: process.env.FAILOVER_LOG_LEVEL ?? 'warn',
  }
  const dirs: string[] = []
  const start = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'till-failover-'))
    dirs.push(dir)
    return startTill(dir, env)
  }
  const a = await start()
  const key = await demoKey(a)
  const tills = [a, await start()]
  const endpoint = await api(a, 'POST', '/api/v1/webhook_endpoints', key, { url: sink.url })
  if (endpoint.status !== 201) throw new Error(`webhook endpoint not created: ${JSON.stringify(endpoint.body)}`)
  return {
    cluster, tills, key, store, sink,
    async stop() {
      for (const t of tills) t.child.kill('SIGTERM')
      await Promise.all(tills.map((t) => t.closed))
      tills.forEach((t, i) => writeFileSync(path.join(FAILOVER_DIR, `till-${i}.log`), t.stdout() + t.stderr()))
      await store.close()
      await sink.close()
      await cluster.stop()
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    },
  }
}
