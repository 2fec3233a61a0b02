/**
 * `till backup` and `till restore` for the embedded PostgreSQL (docs/operate.md, "Backups and
 * point-in-time recovery"). The embedded binaries have neither pg_dump nor pg_basebackup, so a
 * backup of a running cluster does what pg_basebackup does, with PostgreSQL's low-level backup API:
 * a temporary replication slot keeps every WAL segment from the start, pg_backup_start, the data
 * directory copied by tar while Till writes on, pg_backup_stop, then the WAL (read after the stop,
 * so it holds everything the copy needs) and the backup_label PostgreSQL returned. Started on that
 * copy, PostgreSQL replays the WAL: every write committed before the backup ended is there.
 * A stopped cluster is copied as it is. The archive holds DATA_DIR's pg/, pg-password and
 * secrets.key (when Till generated one): keep it as secret as DATA_DIR itself.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { claimDataDir, embeddedConnection, embeddedRunning, runAsIds } from './embedded.js'

const run = promisify(execFile)
const MANIFEST = 'till-backup.json'
/** Files of DATA_DIR beside pg/ that a restore needs: the cluster's password, and the key of encrypted credentials. */
const BESIDE = ['pg-password', 'secrets.key']
/** What pg_basebackup leaves out too: files of the running server, and WAL (added after the stop). */
const EXCLUDE = ['pg/postmaster.pid', 'pg/postmaster.opts', 'pg/pg_wal/*', 'pg/pg_replslot/*', 'pg/pg_stat_tmp/*', 'pg/server.log', 'pg/backup_label*', 'pg/tablespace_map*']

export interface BackupResult {
  file: string
  online: boolean
  bytes: number
  /** WAL position at the end of the backup (online only). */
  stopLsn?: string
}

/** tar's exit code 1 means files changed while read: expected for a running cluster, which WAL replay repairs. */
async function tar(args: string[]) {
  try {
    await run('tar', args, { maxBuffer: 16 << 20 })
  } catch (e) {
    if ((e as { code?: number }).code !== 1) throw new Error(`tar ${args[0]} failed: ${(e as { stderr?: string }).stderr || (e as Error).message}`)
  }
}

/** Copies DATA_DIR's embedded database into the tar archive `file`, while Till runs or not. */
export async function backupEmbedded(dataDir: string, file: string): Promise<BackupResult> {
  dataDir = path.resolve(dataDir)
  file = path.resolve(file)
  if (!existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))) throw new Error(`no embedded database in ${dataDir} (DATA_DIR)`)
  const beside = BESIDE.filter((f) => existsSync(path.join(dataDir, f)))
  const partial = `${file}.partial`
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), 'till-backup-'))
  const manifest: Record<string, unknown> = { format: 1, startedAt: new Date().toISOString() }
  const quietTar = ['--warning=no-file-changed', '--warning=no-file-removed', '--warning=no-file-shrank']
  let stopLsn: string | undefined
  try {
    await fs.rm(partial, { force: true })
    const online = await embeddedRunning(dataDir)
    if (!online) {
      await tar(['-cf', partial, '-C', dataDir, '--exclude=pg/postmaster.pid', 'pg', ...beside])
    } else {
      const client = new pg.Client(await embeddedConnection(dataDir, 'postgres'))
      await client.connect()
      try {
        // Temporary: dropped with this session, whatever happens to the backup.
        await client.query('select pg_create_physical_replication_slot($1, true, true)', [`till_backup_${process.pid}`])
        manifest.startLsn = (await client.query('select pg_backup_start($1, true) as lsn', [`till backup ${manifest.startedAt}`])).rows[0].lsn
        await tar(['-cf', partial, '-C', dataDir, ...EXCLUDE.map((x) => `--exclude=${x}`), ...quietTar, 'pg', ...beside])
        const stop = (await client.query('select lsn::text, labelfile, spcmapfile from pg_backup_stop(false)')).rows[0]
        stopLsn = stop.lsn
        await fs.mkdir(path.join(staging, 'pg'))
        await fs.writeFile(path.join(staging, 'pg', 'backup_label'), stop.labelfile)
        if (stop.spcmapfile) await fs.writeFile(path.join(staging, 'pg', 'tablespace_map'), stop.spcmapfile)
        // The WAL from the start on, read now: it reaches past the stop.
        await tar(['-rf', partial, '-C', dataDir, ...quietTar, 'pg/pg_wal'])
        await tar(['-rf', partial, '-C', staging, ...(stop.spcmapfile ? ['pg/backup_label', 'pg/tablespace_map'] : ['pg/backup_label'])])
      } finally {
        await client.end().catch(() => {})
      }
    }
    Object.assign(manifest, { online, stopLsn, endedAt: new Date().toISOString() })
    await fs.writeFile(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`)
    await tar(['-rf', partial, '-C', staging, MANIFEST])
    await fs.chmod(partial, 0o600)
    await fs.rename(partial, file)
    return { file, online, bytes: (await fs.stat(file)).size, stopLsn }
  } finally {
    await fs.rm(staging, { recursive: true, force: true })
    await fs.rm(partial, { force: true })
  }
}

export interface RestoreResult {
  /** Where the database that was in DATA_DIR went (kept, never deleted), if there was one. */
  keptAs?: string
}

/**
 * Puts the backup `file` in DATA_DIR while Till is stopped. What DATA_DIR held is moved aside, not
 * deleted. The next `till start` replays the backup's WAL and carries on from there.
 */
export async function restoreEmbedded(dataDir: string, file: string): Promise<RestoreResult> {
  dataDir = path.resolve(dataDir)
  file = path.resolve(file)
  const listing = (await run('tar', ['-tf', file], { maxBuffer: 256 << 20 }).catch((e) => {
    throw new Error(`${file} is not a till backup (${(e as { stderr?: string }).stderr?.trim() || (e as Error).message})`)
  })).stdout.split('\n')
  if (!listing.includes(MANIFEST) || !listing.includes('pg/PG_VERSION')) throw new Error(`${file} is not a till backup (no ${MANIFEST} or pg/PG_VERSION in it)`)
  await fs.mkdir(dataDir, { recursive: true })
  if (await embeddedRunning(dataDir)) throw new Error(`the embedded PostgreSQL in ${dataDir} is running: stop Till first`)
  const lock = await claimDataDir(dataDir).catch((e: Error) => {
    throw new Error(`${e.message}: stop Till first`)
  })
  try {
    const beside = BESIDE.filter((f) => listing.includes(f))
    let keptAs: string | undefined
    if (existsSync(path.join(dataDir, 'pg'))) {
      keptAs = path.join(dataDir, `before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`)
      await fs.mkdir(keptAs)
      for (const f of ['pg', ...beside]) {
        if (existsSync(path.join(dataDir, f))) await fs.rename(path.join(dataDir, f), path.join(keptAs, f))
      }
    }
    await run('tar', ['-xf', file, '-C', dataDir, 'pg', ...beside], { maxBuffer: 16 << 20 })
    const pgData = path.join(dataDir, 'pg')
    await fs.chmod(pgData, 0o700)
    const ids = await runAsIds()
    if (ids.uid !== undefined) await run('chown', ['-R', `${ids.uid}:${ids.gid}`, pgData])
    return { keptAs }
  } finally {
    await fs.rm(lock, { force: true })
  }
}
