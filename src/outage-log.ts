/**
 * Warnings about something that keeps failing while the database is away (a job, a LISTEN
 * connection, a key not yet released): the first failure is logged at once, then at most one line
 * per `everyMs` for each kind, saying how many were held back; the first success after a failure is
 * logged once. A failover of half a minute is a few lines, not one per retry.
 */
import { loggableError, type Logger } from './logging.js'

export const OUTAGE_LOG_EVERY_MS = 30_000

export interface OutageLog {
  failed(kind: string, err: unknown, msg: string): void
  /** A success: logs once if `kind` was failing. */
  ok(kind: string, msg: string): void
}

export function outageLog(log: Logger, everyMs = OUTAGE_LOG_EVERY_MS, now: () => number = Date.now): OutageLog {
  const failing = new Map<string, { since: number; loggedAt: number; held: number }>()
  return {
    failed(kind, err, msg) {
      const t = now()
      const s = failing.get(kind)
      if (!s) {
        failing.set(kind, { since: t, loggedAt: t, held: 0 })
        log.warn({ err: loggableError(err), kind }, msg)
      } else if (t - s.loggedAt < everyMs) {
        s.held++
      } else {
        log.warn({ err: loggableError(err), kind, failingForMs: t - s.since, heldBack: s.held }, msg)
        s.loggedAt = t
        s.held = 0
      }
    },
    ok(kind, msg) {
      const s = failing.get(kind)
      if (!s) return
      failing.delete(kind)
      log.info({ kind, failedForMs: now() - s.since }, msg)
    },
  }
}
