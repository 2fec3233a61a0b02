/**
 * `till backup` and `till restore`: the embedded database of DATA_DIR copied while Till runs, and
 * put back while it is stopped (src/store/embedded-backup.ts). They work on the files of this
 * machine, not over HTTP; with DATABASE_URL, back up that server with its own tools instead.
 */
import { parseArgs } from 'node:util'
import { backupEmbedded, restoreEmbedded } from '../store/embedded-backup.js'
import { CliError, usageError, wantsHelp } from './args.js'

export const BACKUP_HELP = `usage: till backup [--out FILE] [--data-dir DIR]

Copies the embedded PostgreSQL of DATA_DIR (default ./data) into one tar file, consistent, while
Till runs (or not). Every write Till acknowledged before the backup ends is in it. The file holds
the database, its password and secrets.key if Till generated one: keep it as secret as DATA_DIR.
With DATABASE_URL, back up that server with pgBackRest or pg_dump instead (docs/operate.md).

example:
  DATA_DIR=/var/lib/till till backup --out /backups/till-$(date +%F).tar`

export const RESTORE_HELP = `usage: till restore FILE [--data-dir DIR]

Puts a backup made by \`till backup\` into DATA_DIR (default ./data). Till must be stopped. What
DATA_DIR held is moved into DATA_DIR/before-restore-<time>/, not deleted. The next \`till start\`
replays the backup's WAL and serves what the backup held.

example:
  DATA_DIR=/var/lib/till till restore /backups/till-2026-11-27.tar && DATA_DIR=/var/lib/till till start`

function parse(argv: string[], options: Record<string, { type: 'string' }>) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (e) {
    throw usageError((e as Error).message)
  }
}

const out = (text: string) => process.stdout.write(`${text}\n`)

export async function runBackup(name: 'backup' | 'restore', argv: string[]): Promise<number> {
  if (wantsHelp(argv)) return out(name === 'backup' ? BACKUP_HELP : RESTORE_HELP), 0
  if (name === 'backup') {
    const { values, positionals } = parse(argv, { out: { type: 'string' }, 'data-dir': { type: 'string' } })
    if (positionals.length > 0) throw usageError(`unexpected argument ${JSON.stringify(positionals[0])}`)
    const dataDir = values['data-dir'] ?? process.env.DATA_DIR ?? './data'
    const file = values.out ?? `till-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar`
    const done = await backupEmbedded(dataDir, file).catch((e: Error) => {
      throw new CliError(e.message)
    })
    out(`backed up ${dataDir} ${done.online ? `while it ran (to WAL position ${done.stopLsn})` : '(stopped)'} into ${done.file}, ${done.bytes} bytes`)
    return 0
  }
  const { values, positionals } = parse(argv, { 'data-dir': { type: 'string' } })
  if (positionals.length !== 1) throw usageError(positionals.length === 0 ? 'missing FILE' : `unexpected argument ${JSON.stringify(positionals[1])}`)
  const dataDir = values['data-dir'] ?? process.env.DATA_DIR ?? './data'
  const done = await restoreEmbedded(dataDir, positionals[0]).catch((e: Error) => {
    throw new CliError(e.message)
  })
  out(`restored ${positionals[0]} into ${dataDir}${done.keptAs ? `; what was there is in ${done.keptAs}` : ''}. Start Till to serve it.`)
  return 0
}
