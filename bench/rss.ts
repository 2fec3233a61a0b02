/**
 * Memory of a process and of a PostgreSQL cluster, from Linux /proc. A Node process: VmRSS. The
 * cluster: its processes' proportional set size (Pss, smaps_rollup) summed, because every backend
 * maps the same shared buffers and a plain RSS sum would count them once per backend; the RSS sum is
 * kept beside it as the upper bound.
 */
import { readdirSync, readFileSync } from 'node:fs'

const KIB = 1024

/** One field (in kB) of a /proc file of key: value lines, in bytes; NaN when the process is gone. */
function field(file: string, name: string): number {
  try {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'))
    return m ? Number(m[1]) * KIB : NaN
  } catch {
    return NaN
  }
}

export const rssOf = (pid: number) => field(`/proc/${pid}/status`, 'VmRSS')

function parentOf(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return -1
  }
}

export interface ClusterMemory {
  /** Sum of Pss over the postmaster and its children: shared buffers counted once in all. */
  pss: number
  /** Sum of VmRSS: shared pages counted once per process that touched them. */
  rss: number
  processes: number
}

export function clusterMemory(postmaster: number): ClusterMemory {
  const pids = [postmaster]
  for (const d of readdirSync('/proc')) if (/^\d+$/.test(d) && parentOf(Number(d)) === postmaster) pids.push(Number(d))
  let pss = 0
  let rss = 0
  let processes = 0
  for (const pid of pids) {
    const p = field(`/proc/${pid}/smaps_rollup`, 'Pss')
    const r = rssOf(pid)
    if (Number.isNaN(p) || Number.isNaN(r)) continue // ended between the listing and the read
    pss += p
    rss += r
    processes++
  }
  return { pss, rss, processes }
}

export const mib = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : '–')
