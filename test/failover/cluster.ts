/**
 * A three-node PostgreSQL 15 cluster managed by Patroni, with one etcd and HAProxy routing to the
 * leader, all on loopback (scripts/failover.sh installs them; deploy/failover/ holds the
 * configuration, filled in here). The faults: SIGKILL of a node's Patroni and postmaster,
 * SIGSTOP/SIGCONT of all its processes, its standbys cut off (its WAL senders stopped: nothing more
 * reaches them and nothing is closed, as in a partition), and a planned switchover. Every process started here is recorded in `pids` (scripts/failover.sh ends
 * them by id if the run dies).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { appendFileSync, chownSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/failover')
const BASE_PORT = Number(process.env.FAILOVER_BASE_PORT) || 16_400
const PASSWORD = 'till-failover'
export const TTL_S = 20

export interface Node {
  name: string
  pgPort: number
  restPort: number
  dir: string
  dataDir: string
  patroni: ChildProcess | null
}

export interface Member {
  name: string
  role: 'leader' | 'sync_standby' | 'replica' | string
  state: string
  lag?: number | string
}

const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\$\{(\w+)\}/g, (_m, k: string) => {
    if (!(k in values)) throw new Error(`no value for \${${k}}`)
    return values[k]
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: string, ms: number, check: () => Promise<T | null | false> | T | null | false, everyMs = 250): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await Promise.resolve(check()).catch(() => null)
    if (v) return v
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`)
    await sleep(everyMs)
  }
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  try {
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'])
    return { uid: id('-u'), gid: id('-g') }
  }
}

/** The processes of a postmaster: itself and its children (backends, walsenders, checkpointer…). */
function postgresPids(dataDir: string): number[] {
  const file = path.join(dataDir, 'postmaster.pid')
  if (!existsSync(file)) return []
  const pm = Number(readFileSync(file, 'utf8').split('\n')[0])
  return [pm, ...childrenOf(pm)]
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent
    } catch {
      return false
    }
  }).map(Number)
}

const isWalSender = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('walsender')
  } catch {
    return false
  }
}

function signal(pids: number[], sig: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, sig)
    } catch {}
  }
}

export class Cluster {
  readonly nodes: Node[] = []
  private etcd: ChildProcess | null = null
  private haproxy: ChildProcess | null = null
  private readonly ids = postgresIds()
  readonly etcdPort = BASE_PORT + 79
  readonly haproxyPort = BASE_PORT
  readonly statsPort = BASE_PORT + 1

  constructor(readonly dir: string, private readonly patroniBin: string) {}

  /** A superuser URL through HAProxy: always the current primary. */
  url(database = 'postgres'): string {
    return `postgresql://postgres:${PASSWORD}@127.0.0.1:${this.haproxyPort}/${database}`
  }

  private track(child: ChildProcess, what: string) {
    appendFileSync(path.join(this.dir, 'pids'), `${child.pid} ${what}\n`)
    return child
  }

  private log(name: string): number {
    return openSync(path.join(this.dir, `${name}.log`), 'a')
  }

  async start() {
    rmSync(this.dir, { recursive: true, force: true })
    mkdirSync(this.dir, { recursive: true })
    chownSync(this.dir, this.ids.uid, this.ids.gid)
    const etcdUrl = `http://127.0.0.1:${this.etcdPort}`
    const peer = `http://127.0.0.1:${this.etcdPort + 1}`
    this.etcd = this.track(spawn('etcd', [
      '--name', 'e1', '--data-dir', path.join(this.dir, 'etcd'),
      '--listen-client-urls', etcdUrl, '--advertise-client-urls', etcdUrl,
      '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `e1=${peer}`,
    ], { stdio: ['ignore', this.log('etcd'), this.log('etcd')] }), 'etcd')
    await until('etcd healthy', 30_000, async () => ((await (await fetch(`${etcdUrl}/health`)).json()) as { health: string }).health === 'true')

    for (let i = 1; i <= 3; i++) {
      const name = `pg${i}`
      const dir = path.join(this.dir, name)
      mkdirSync(dir, { recursive: true })
      chownSync(dir, this.ids.uid, this.ids.gid)
      const pgPort = BASE_PORT + 10 + i
      const node: Node = { name, pgPort, restPort: BASE_PORT + 30 + i, dir, dataDir: path.join(dir, 'data'), patroni: null }
      writeFileSync(path.join(dir, 'patroni.yml'), fill(readFileSync(path.join(DEPLOY, 'patroni.yml'), 'utf8'), {
        NAME: name,
        REST_ADDRESS: `127.0.0.1:${node.restPort}`,
        ETCD_HOSTS: `127.0.0.1:${this.etcdPort}`,
        PG_ADDRESS: `127.0.0.1:${pgPort}`,
        PG_CONNECT_ADDRESS: `127.0.0.1:${pgPort}`,
        DATA_DIR: node.dataDir,
        PGPASS: path.join(dir, 'pgpass'),
        SUPERUSER_PASSWORD: PASSWORD,
        REPLICATION_PASSWORD: PASSWORD,
        REWIND_PASSWORD: PASSWORD,
        SOCKET_DIR: dir,
      }))
      this.nodes.push(node)
    }
    const servers = this.nodes.map((n) => `    server ${n.name} 127.0.0.1:${n.pgPort} maxconn 300 check port ${n.restPort}`).join('\n')
    writeFileSync(path.join(this.dir, 'haproxy.cfg'), fill(readFileSync(path.join(DEPLOY, 'haproxy.cfg'), 'utf8'), {
      STATS_ADDRESS: `127.0.0.1:${this.statsPort}`, PRIMARY_ADDRESS: `127.0.0.1:${this.haproxyPort}`, SERVERS: servers,
    }))
    this.haproxy = this.track(spawn('haproxy', ['-db', '-f', path.join(this.dir, 'haproxy.cfg')], { stdio: ['ignore', this.log('haproxy'), this.log('haproxy')] }), 'haproxy')

    // The first node bootstraps the cluster; the others clone it once it leads.
    this.startPatroni(this.nodes[0])
    await until('pg1 leading', 120_000, async () => (await this.members()).some((m) => m.name === 'pg1' && m.role === 'leader' && m.state === 'running'))
    for (const n of this.nodes.slice(1)) this.startPatroni(n)
    await this.healthy(180_000)
  }

  startPatroni(node: Node) {
    node.patroni = this.track(spawn(this.patroniBin, [path.join(node.dir, 'patroni.yml')], {
      uid: this.ids.uid, gid: this.ids.gid, cwd: node.dir,
      env: { PATH: process.env.PATH, HOME: node.dir, LC_ALL: 'C.UTF-8' },
      stdio: ['ignore', this.log(node.name), this.log(node.name)],
    }), `patroni ${node.name}`)
  }

  /** The cluster as any live node's Patroni sees it. */
  async members(): Promise<Member[]> {
    for (const n of this.nodes) {
      try {
        const res = await fetch(`http://127.0.0.1:${n.restPort}/cluster`, { signal: AbortSignal.timeout(2000) })
        if (res.ok) return ((await res.json()) as { members: Member[] }).members
      } catch {}
    }
    return []
  }

  async leader(): Promise<Node> {
    const name = await until('a leader', 60_000, async () => (await this.members()).find((m) => m.role === 'leader' && m.state === 'running')?.name ?? null)
    return this.nodes.find((n) => n.name === name)!
  }

  /** A leader, a synchronous standby and a replica, both streaming, and HAProxy routing to the leader. */
  async healthy(ms = 120_000) {
    await until('the cluster healthy (leader, sync standby, replica streaming)', ms, async () => {
      const m = await this.members()
      const ok = m.length === 3 && m.some((x) => x.role === 'leader' && x.state === 'running') &&
        m.some((x) => x.role === 'sync_standby' && x.state === 'streaming') && m.filter((x) => x.state === 'streaming').length === 2
      if (!ok) return false
      const c = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 2000 })
      try {
        await c.connect()
        return !(await c.query('select pg_is_in_recovery() as r')).rows[0].r
      } finally {
        await c.end().catch(() => {})
      }
    }, 500)
  }

  private patroniPid(node: Node): number[] {
    return node.patroni?.pid ? [node.patroni.pid] : []
  }

  /** SIGKILL of the node's Patroni and postmaster (its backends then end by themselves). */
  kill(node: Node) {
    signal([...this.patroniPid(node), ...postgresPids(node.dataDir).slice(0, 1)], 'SIGKILL')
    node.patroni = null
  }

  /** SIGSTOP of every process of the node: Patroni, the postmaster and its children. */
  freeze(node: Node) {
    signal([...this.patroniPid(node), ...postgresPids(node.dataDir)], 'SIGSTOP')
  }

  /** PostgreSQL first, then Patroni, which then finds out it lost the leader lock and demotes it. */
  thaw(node: Node) {
    signal(postgresPids(node.dataDir), 'SIGCONT')
    signal(this.patroniPid(node), 'SIGCONT')
  }

  /**
   * Cuts the node off from its standbys: its WAL senders stop (SIGSTOP), so nothing more reaches the
   * standbys and no connection closes; commits wait for the synchronous standby meanwhile.
   */
  cutReplication(node: Node) {
    this.cut = postgresPids(node.dataDir).slice(1).filter(isWalSender)
    signal(this.cut, 'SIGSTOP')
  }

  private cut: number[] = []

  /** Ends the stopped WAL senders of a node killed meanwhile (they would hold its shared memory). */
  endCut() {
    signal(this.cut, 'SIGKILL')
    this.cut = []
  }

  /** Starts a killed node again: Patroni rejoins it as a replica (pg_rewind when it must). */
  async rejoin(node: Node) {
    // Its orphaned backends must be gone before a new postmaster may start on the data directory.
    await until(`${node.name}'s old processes gone`, 30_000, () => postgresPids(node.dataDir).every((pid) => {
      try {
        process.kill(pid, 0)
        return false
      } catch {
        return true
      }
    }))
    this.startPatroni(node)
  }

  /** A planned switchover with patronictl, to `candidate`. */
  switchover(leader: Node, candidate: Node) {
    execFileSync(path.join(path.dirname(this.patroniBin), 'patronictl'), [
      '-c', path.join(leader.dir, 'patroni.yml'), 'switchover', '--leader', leader.name, '--candidate', candidate.name, '--force',
    ], { stdio: 'pipe', env: { ...process.env, HOME: leader.dir } })
  }

  async stop() {
    for (const n of this.nodes) {
      this.thaw(n)
      n.patroni?.kill('SIGTERM')
    }
    await Promise.all(this.nodes.map((n) => n.patroni && new Promise((r) => (n.patroni!.exitCode !== null ? r(null) : n.patroni!.once('exit', r)))))
    // Patroni stops its PostgreSQL; a node killed earlier may have left one.
    for (const n of this.nodes) for (const pid of postgresPids(n.dataDir).slice(0, 1)) {
      try {
        process.kill(pid, 'SIGQUIT')
      } catch {}
    }
    this.haproxy?.kill('SIGTERM')
    this.etcd?.kill('SIGTERM')
  }
}
