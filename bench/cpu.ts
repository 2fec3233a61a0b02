/**
 * CPU time spent per request, by process (Linux /proc): on a busy 2-core machine throughput swings
 * with whatever else runs, while CPU microseconds per request stay put, so they show where a
 * request's cost lies (the HTTP process or PostgreSQL) and what a fix saved.
 */
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import type pg from 'pg'

const TICK_US = 1e6 / 100 // USER_HZ is 100 on Linux

function stat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return s.slice(s.lastIndexOf(')') + 2).split(' ') // fields from the 3rd (state) on
  } catch {
    return null
  }
}

/** utime + stime of one process and its threads, in microseconds. */
function cpuOf(pid: number): number {
  const f = stat(pid)
  return f ? (Number(f[11]) + Number(f[12])) * TICK_US : 0
}

/** The postmaster of the database the pool reaches, when it runs on this machine; null otherwise. */
export async function postmasterOf(pool: pg.Pool): Promise<number | null> {
  if (os.platform() !== 'linux') return null
  const { rows } = await pool.query('select pg_backend_pid() as pid')
  const f = stat(rows[0].pid)
  return f ? Number(f[1]) : null
}

/** CPU µs of every process of the cluster by pid: the postmaster and its children (backends, walwriter, checkpointer…). */
function clusterCpu(postmaster: number): Map<number, number> {
  const out = new Map([[postmaster, cpuOf(postmaster)]])
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    const f = stat(Number(d))
    if (f && Number(f[1]) === postmaster) out.set(Number(d), cpuOf(Number(d)))
  }
  return out
}

// PostgreSQL's own processes, by the title it gives them: everything but the client connections' backends.
const BACKGROUND = /autovacuum|checkpointer|walwriter|background writer|io worker|walsummarizer|archiver|logger|launcher|postmaster|^postgres\s*$/
const kinds = new Map<number, boolean>()
/** Whether a cluster process is background work (autovacuum, checkpoints, WAL writing), read once per pid. */
function isBackground(pid: number, postmaster: number) {
  let k = kinds.get(pid)
  if (k === undefined) {
    let title = ''
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
    } catch {}
    kinds.set(pid, k = pid === postmaster || BACKGROUND.test(title.replace(/^postgres:\s*/, '')))
  }
  return k
}

export interface CpuSample {
  http: number
  pg: number
  /** Of `pg`, PostgreSQL's background processes (autovacuum, checkpointer, WAL and background writers): not the statements' backends. */
  pgBackground?: number
}

/**
 * Starts counting; the returned function gives CPU µs spent since, in the HTTP process(es) and in
 * PostgreSQL. Per process: a backend that ended meanwhile (an idle pool connection closing) takes
 * its whole past with it, so only processes alive at the end count, each from its first sight.
 */
export function cpuMeter(httpPids: number | number[], postmaster: number | null): () => CpuSample {
  const pids = ([] as number[]).concat(httpPids)
  const httpCpu = () => pids.reduce((sum, pid) => sum + cpuOf(pid), 0)
  const http0 = httpCpu()
  const pg0 = postmaster ? clusterCpu(postmaster) : null
  return () => {
    let pgUsed = NaN
    let background = NaN
    if (postmaster && pg0) {
      pgUsed = background = 0
      for (const [pid, t] of clusterCpu(postmaster)) {
        pgUsed += t - (pg0.get(pid) ?? 0)
        if (isBackground(pid, postmaster)) background += t - (pg0.get(pid) ?? 0)
      }
    }
    return { http: httpCpu() - http0, pg: pgUsed, pgBackground: background }
  }
}
