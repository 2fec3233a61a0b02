/**
 * The benchmarks' PostgreSQL: BENCH_DATABASE_URL (an empty database they may migrate), else an
 * embedded cluster in a temporary directory, removed afterwards. Child processes (Till, the ceiling)
 * reach it through `url`; the harness itself through `database`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openPool, runMigrations, type Database } from '../src/store/db.js'
import { startEmbedded, stopEmbedded } from '../src/store/embedded.js'

export interface BenchDb {
  url: string
  database: Database
  /** "PostgreSQL 18.1 (embedded)" and the like, for the report. */
  describe: string
  close(): Promise<void>
}

export async function openBenchDb(poolSize = 10): Promise<BenchDb> {
  let url = process.env.BENCH_DATABASE_URL
  let dir: string | null = null
  if (!url) {
    dir = mkdtempSync(path.join(os.tmpdir(), 'till-bench-'))
    const pg = await startEmbedded(dir, { info() {}, warn: (m) => console.error(m) })
    const c = pg.connection
    url = `postgresql://${c.user}:${encodeURIComponent(String(c.password))}@localhost/${c.database}?host=${encodeURIComponent(String(c.host))}&port=${c.port}`
  }
  // The harness seeds in bulk: no query timeout (Till's own pool keeps its own).
  const database = openPool(url, poolSize, { queryTimeoutMs: 0 })
  await runMigrations(database.pool)
  const { rows } = await database.pool.query(`select current_setting('server_version') as v, current_setting('shared_buffers') as sb`)
  const describe = `PostgreSQL ${rows[0].v} (${dir ? 'embedded, Unix socket' : 'BENCH_DATABASE_URL'}, shared_buffers ${rows[0].sb})`
  return {
    url,
    database,
    describe,
    async close() {
      await database.close()
      if (dir) {
        await stopEmbedded(dir)
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** The machine, for the report: CPUs, model, memory, Node, load. */
export function machine(): { cpus: number; model: string; memory: string; node: string; kernel: string } {
  const cpus = os.cpus()
  let kernel = os.release()
  try {
    kernel = execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim()
  } catch {}
  return {
    cpus: cpus.length,
    model: cpus[0]?.model.trim() ?? 'unknown',
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    kernel,
  }
}
