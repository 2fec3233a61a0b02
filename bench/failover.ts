/**
 * Till through a PostgreSQL failover, on the failover stage's cluster (test/failover/: three
 * PostgreSQL 15 nodes under Patroni with synchronous_mode on, one etcd, HAProxy, two Till
 * processes): the stage's mixed load (checkout, test pay, two partial refunds, each with an
 * Idempotency-Key and retried with it after a 503) runs for a while, the leader is killed (SIGKILL of
 * its Patroni and postmaster), and again after a planned switchover. Reported: acknowledged writes
 * per second before and after, and the write gap (the longest time without an acknowledged write).
 * scripts/failover.sh installs what the cluster needs (`bash scripts/failover.sh install`).
 *
 * Knobs: BENCH_FAILOVER_CLIENTS (8), BENCH_FAILOVER_WINDOW_S (20).
 */
import { execFileSync } from 'node:child_process'
import { TTL_S } from '../test/failover/cluster.js'
import { Load, writeGap } from '../test/failover/load.js'
import { FAILOVER_DIR, startStack, type Stack } from '../test/failover/stack.js'
import { context, table } from './report.js'

const CLIENTS = Number(process.env.BENCH_FAILOVER_CLIENTS) || 8
const WINDOW_MS = (Number(process.env.BENCH_FAILOVER_WINDOW_S) || 20) * 1000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Round {
  fault: string
  before: number
  gapMs: number
  unavailable: number
  other: number
  after: number
}

/** Writes acknowledged per second in [from, to). */
const rate = (load: Load, from: number, to: number) => load.acked(from).filter((a) => a.endedAt < to).length / ((to - from) / 1000)

async function round(stack: Stack, load: Load, fault: string, inject: () => Promise<() => Promise<void>>): Promise<Round> {
  const from = load.answers.length
  load.start(CLIENTS, fault.replace(/\W/g, ''))
  await sleep(5000) // warm-up, not measured
  const measuredFrom = performance.now()
  await sleep(WINDOW_MS)
  const faultAt = performance.now()
  const heal = await inject()
  // Writes resumed: the first acknowledged write sent after the fault.
  while (!load.acked(faultAt).some((a) => a.startedAt > faultAt)) await sleep(100)
  const resumedAt = performance.now()
  await sleep(WINDOW_MS)
  const end = performance.now()
  await load.stop()
  const answers = load.answers.slice(from)
  await heal()
  await stack.cluster.healthy(180_000)
  return {
    fault,
    before: rate(load, measuredFrom, faultAt),
    gapMs: writeGap(answers, faultAt, end),
    unavailable: answers.filter((a) => a.status === 503).length,
    other: answers.filter((a) => a.status !== 200 && a.status !== 503).length,
    after: rate(load, resumedAt + 5000, end),
  }
}

export async function benchFailover(): Promise<string> {
  execFileSync('bash', ['scripts/failover.sh', 'install', FAILOVER_DIR], { stdio: 'inherit' })
  const stack = await startStack()
  const load = new Load(stack.tills, stack.key)
  const rounds: Round[] = []
  try {
    rounds.push(await round(stack, load, 'leader killed (SIGKILL of Patroni and postmaster)', async () => {
      const leader = await stack.cluster.leader()
      stack.cluster.kill(leader)
      return () => stack.cluster.rejoin(leader)
    }))
    rounds.push(await round(stack, load, 'planned switchover (patronictl)', async () => {
      const leader = await stack.cluster.leader()
      const sync = (await stack.cluster.members()).find((m) => m.role === 'sync_standby')!
      stack.cluster.switchover(leader, stack.cluster.nodes.find((n) => n.name === sync.name)!)
      return async () => {}
    }))
  } finally {
    await load.stop()
    await stack.stop()
  }
  for (const r of rounds) console.log(`${r.fault}: ${r.before.toFixed(1)} writes/s before, gap ${(r.gapMs / 1000).toFixed(1)} s, ${r.after.toFixed(1)} writes/s after`)
  return [
    '## Failover: writes through a PostgreSQL primary failover',
    '',
    context([
      `Cluster: three PostgreSQL 15 nodes under Patroni (synchronous_mode on, ttl ${TTL_S} s, loop_wait 2 s), one etcd, HAProxy on Patroni's \`/primary\`; two Till processes through HAProxy; all on loopback (test/failover/, deploy/failover/)`,
      `Load: ${CLIENTS} clients, each a checkout, a test pay and two partial refunds in turn, every request with an Idempotency-Key and retried with it after a 503 (Retry-After); ${WINDOW_MS / 1000} s measured before the fault and after writes resumed (the first 5 s after excluded)`,
    ]),
    '',
    table(['Fault', 'Writes/s before', 'Write gap', '503 answers', 'Other errors', 'Writes/s after'],
      rounds.map((r) => [r.fault, r.before.toFixed(1), `${(r.gapMs / 1000).toFixed(1)} s`, r.unavailable, r.other, r.after.toFixed(1)])),
    '',
    'The write gap is the longest time without an acknowledged write from the fault on. An unplanned',
    'failover waits for the leader lock to expire (the ttl) before a standby is promoted.',
  ].join('\n')
}
