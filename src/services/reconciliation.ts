/**
 * Reconciliation against the providers' own statements (docs/reconciliation.md): runs of one day of
 * one configuration. The day is leased; its statement is fetched outside any transaction and its
 * files kept (nothing of a statement not ready); then, in one transaction, it is matched
 * (reconciliation-match.ts) and the result recorded with, when the run found new mismatches, the
 * merchant's event. A failed run leaves the day as it was: nothing partial.
 */
import { randomBytes } from 'node:crypto'
import { Conflict, InvalidField, NotFound } from '../domain/errors.js'
import { reconciliationEventData } from '../domain/events.js'
import { newId } from '../domain/ids.js'
import { boundedReason, internalReason } from '../domain/reasons.js'
import { dayIn, isDay, isMismatch, nextStatementTry, ITEM_CATEGORIES } from '../domain/reconciliation.js'
import { PROVIDERS } from '../providers/index.js'
import { StatementNotReady, StatementRefused, type StatementSource } from '../providers/statements.js'
import { ProviderError } from '../providers/types.js'
import { boundForLongWork, isConnectionLost } from '../store/db.js'
import { appendEvent } from '../store/repos/events.js'
import { getProviderConfig, getProviderConfigUnscoped, listEnabledUnscoped, type ProviderConfigRow } from '../store/repos/provider-configs.js'
import * as repo from '../store/repos/reconciliation.js'
import type { Scope } from '../store/repos/scope.js'
import type { Deps } from './deps.js'
import { openConfig } from './provider-configs.js'
import { match, StatementFormatError, type MatchOutcome } from './reconciliation-match.js'
import { keepFiles } from './statement-files.js'

/** How long a run may hold a day before another may take it over (a crashed process). */
export const LEASE_MS = 10 * 60_000
/** Provider configurations serve live mode only; test mode's mock provider keeps no statement. */
const MODE = 'live' as const

/** The statement source of a provider, when its adapter has one. */
export function sourceOf(deps: Deps, provider: string): StatementSource | null {
  return deps.providers.get(provider)?.statements ?? null
}

/** The live providers whose adapters fetch statements. */
export const providersWithStatements = (deps: Deps) => PROVIDERS.map((p) => p.id).filter((id) => sourceOf(deps, id))

/** A day cut by the database or by a stop runs again this soon. */
const CUT_RETRY_S = 60

/**
 * The reason a failed fetch or run shows (≤ MAX_REASON characters): the refusal's own words when
 * they are for a person; anything else (a database error and its SQL) is the server log's, under an id.
 */
function failureReason(deps: Deps, e: unknown, where: Record<string, string>): string {
  if (e instanceof StatementRefused || e instanceof StatementFormatError) return boundedReason(e.message)
  if (e instanceof ProviderError) return boundedReason(`${e.outcome === 'rejected' ? 'the provider refused the statement' : 'the statement was not fetched'}: ${e.message}`)
  const logId = randomBytes(6).toString('hex')
  deps.log.error({ ...where, err: e, logId }, 'reconciliation failed; will try again')
  return internalReason(logId)
}

/** The run outlived its lease and another took the day over: its result stands, not this one's. */
class LeaseLost extends Error {}

/**
 * Fetches the day's statement and keeps its files, written as they arrive, in one transaction: a
 * download found not whole at its end keeps nothing. Answers whether files are kept (else the day
 * waits or failed).
 */
async function fetchStatement(deps: Deps, s: repo.StatementRow, cfg: ProviderConfigRow, source: StatementSource, token: string): Promise<boolean> {
  const now = () => deps.clock()
  const tries = s.tries + 1
  const waiting = (reason: string, retryAfterS?: number) =>
    repo.updateStatement(deps.db, s.id, token, { state: 'waiting', reason, tries, nextTryAt: nextStatementTry(now(), tries, retryAfterS), updatedAt: now() })
  try {
    const fetched = await source.fetch(openConfig(deps, cfg), s.day)
    if (!fetched.ready) {
      // Not published yet: nothing to keep.
      await waiting(fetched.reason, fetched.retryAfterS)
      return false
    }
    await deps.db.transaction(async (tx) => {
      boundForLongWork(tx)
      await keepFiles(tx, s.id, fetched.files, now(), deps.config.statementLimits.maxBytes)
      await repo.updateStatement(tx, s.id, token, { state: 'fetched', reason: null, tries: 0, nextTryAt: null, fetchedAt: now(), updatedAt: now() })
    })
    return true
  } catch (e) {
    if (e instanceof StatementNotReady) {
      // A download that failed its hash: the transaction kept nothing of it.
      await waiting(boundedReason(e.reason), e.retryAfterS)
      return false
    }
    if (isConnectionLost(e) || (e instanceof ProviderError && e.code === 'stopping')) {
      // Cut (the database too slow, Till stopping): nothing was kept, and nothing is wrong with the day.
      await waiting(e instanceof ProviderError ? e.message : 'the database did not answer in time; will try again', CUT_RETRY_S)
      return false
    }
    const reason = failureReason(deps, e, { statementId: s.id, configId: cfg.id, day: s.day })
    await repo.updateStatement(deps.db, s.id, token, { state: 'failed', reason, tries, nextTryAt: nextStatementTry(now(), tries), updatedAt: now() })
    deps.log.warn({ err: e, statementId: s.id, configId: cfg.id, day: s.day }, 'reconciliation: statement not fetched; will ask again')
    return false
  }
}

/** Matches the kept files of a day and records the result; the merchant's event when the run found new mismatches. */
async function reconcileFetched(deps: Deps, s: repo.StatementRow, source: StatementSource, token: string): Promise<MatchOutcome | null> {
  try {
    return await deps.db.transaction(async (tx) => {
      boundForLongWork(tx)
      const m = await match(tx, deps, s, source)
      const now = deps.clock()
      const updated = await repo.updateStatement(tx, s.id, token, {
        state: 'reconciled', reason: null, tries: 0, nextTryAt: null, reconciledAt: now, counts: m.counts, totals: m.totals, updatedAt: now,
      })
      if (!updated) throw new LeaseLost()
      const totalsDiffer = m.totals.filter((t) => t.agrees === false).map((t) => t.currency)
      if (m.newMismatches > 0 || (totalsDiffer.length > 0 && s.state !== 'reconciled')) {
        await appendEvent(tx, { merchantId: s.merchantId, mode: s.mode }, 'reconciliation.mismatches_found', reconciliationEventData({
          id: s.id, provider: s.provider, providerConfigId: s.providerConfigId, day: s.day, counts: m.counts,
          openMismatches: m.openMismatches, newMismatches: m.newMismatches, totalsDiffer,
        }), now)
      }
      return m
    })
  } catch (e) {
    if (e instanceof LeaseLost) return null
    // Nothing of the run was kept; the day says why and is tried again later, like a statement not given.
    const now = deps.clock()
    const tries = s.tries + 1
    const where = { statementId: s.id, configId: s.providerConfigId, day: s.day }
    // Cut by the database (too slow even for long work, or gone): the day waits and runs again soon, not failed.
    const cut = isConnectionLost(e)
    const reason = cut ? 'the database did not answer in time; will try again' : failureReason(deps, e, where)
    if (e instanceof StatementFormatError) deps.log.warn({ ...where, reason }, 'reconciliation: statement not parsed; will try again')
    else if (cut) deps.log.warn({ ...where, err: e }, 'reconciliation cut by the database; will try again')
    // A reconciled day's result stands (the transaction kept nothing of this run).
    if (cut && s.state === 'reconciled') return null
    await repo.updateStatement(deps.db, s.id, token, {
      state: cut ? 'fetched' : 'failed', reason, tries, nextTryAt: cut ? new Date(now.getTime() + CUT_RETRY_S * 1000) : nextStatementTry(now, tries), updatedAt: now,
    }).catch((err) => deps.log.warn({ err, statementId: s.id }, 'reconciliation: failure not recorded'))
    return null
  }
}

export interface RunOptions {
  /** Take the day even when it is not due (reconciled already, or waiting for its next try): a re-run. */
  force: boolean
  /** Also run again the reconciled days whose pairs this day's lines changed (a line that came a day late). */
  cascade?: boolean
}

/**
 * Runs one day of one configuration: fetches its statement when none is kept (or, forced, when the
 * source is a live view), then matches it.
 * Answers the statement as it stands after the run, or null when another run holds the day.
 */
export async function runDay(deps: Deps, cfg: ProviderConfigRow, day: string, o: RunOptions): Promise<repo.StatementRow | null> {
  const source = sourceOf(deps, cfg.provider)
  if (!source) throw new InvalidField('providerConfigId', `${cfg.provider} has no statements to reconcile with`)
  const now = deps.clock()
  const token = randomBytes(12).toString('base64url')
  const s = await repo.claimStatement(deps.db, newId('stm'), {
    merchantId: cfg.merchantId, mode: MODE, provider: cfg.provider, providerConfigId: cfg.id, day, zone: source.zone,
  }, { now, until: new Date(now.getTime() + LEASE_MS), token, force: o.force })
  if (!s) return null
  let outcome: MatchOutcome | null = null
  try {
    // A live view is read again when someone (or a cascade) asks: it may list more than when it was kept.
    const kept = s.fetchedAt !== null && !(o.force && source.liveView)
    if (kept || await fetchStatement(deps, s, cfg, source, token)) outcome = await reconcileFetched(deps, s, source, token)
  } finally {
    await repo.releaseStatement(deps.db, s.id, token)
  }
  const after = (await repo.getStatementUnscoped(deps.db, s.id))!
  if (outcome) {
    const mismatches = ITEM_CATEGORIES.filter(isMismatch).reduce((n, c) => n + outcome!.counts[c], 0)
    const totalsDiffer = outcome.totals.filter((t) => t.agrees === false).map((t) => t.currency)
    if (mismatches > 0 || totalsDiffer.length > 0) {
      deps.log.warn({ statementId: s.id, configId: cfg.id, provider: cfg.provider, day, counts: outcome.counts, openMismatches: outcome.openMismatches, totalsDiffer },
        'reconciliation: the provider\'s statement and Till disagree; see the console\'s Reconciliation page')
    }
    if (o.cascade) await rerunDays(deps, cfg, [...outcome.otherDays])
  }
  return after
}

/** Runs again the reconciled days among `days` (their items may pair with lines that arrived since). */
async function rerunDays(deps: Deps, cfg: ProviderConfigRow, days: string[]) {
  for (const other of await repo.reconciledDays(deps.db, cfg.id, days)) {
    await runDay(deps, cfg, other.day, { force: true })
  }
}

/** A run asked for by a person (admin API, till reconcile, the console's re-check): the day now, whatever its state. */
export async function runDayNow(deps: Deps, cfg: ProviderConfigRow, day: string) {
  const s = await runDay(deps, cfg, day, { force: true, cascade: true })
  if (!s) throw new Conflict('a reconciliation of this day is running; try again in a minute')
  return s
}

/**
 * A run by the operator (admin API, till reconcile): the day of the configuration named (any
 * merchant's), or of every enabled configuration with statements; a past day in each provider's zone.
 */
export async function runByHand(deps: Deps, input: { date: string; providerConfigId?: string }) {
  if (!isDay(input.date)) throw new InvalidField('date', 'must be a day written YYYY-MM-DD')
  const cfgs = await configsToRun(deps, input.providerConfigId)
  for (const cfg of cfgs) {
    const zone = sourceOf(deps, cfg.provider)!.zone
    if (input.date >= dayIn(deps.clock(), zone)) throw new InvalidField('date', `must be a day before today in the provider's time zone (${zone})`)
  }
  const runs: repo.StatementRow[] = []
  for (const cfg of cfgs) runs.push(await runDayNow(deps, cfg, input.date))
  return runs
}

async function configsToRun(deps: Deps, configId: string | undefined): Promise<ProviderConfigRow[]> {
  if (configId !== undefined) {
    const cfg = await getProviderConfigUnscoped(deps.db, configId)
    if (!cfg) throw new InvalidField('providerConfigId', 'no such provider configuration')
    if (!sourceOf(deps, cfg.provider)) throw new InvalidField('providerConfigId', `${cfg.provider} has no statements to reconcile with`)
    return [cfg]
  }
  return listEnabledUnscoped(deps.db, providersWithStatements(deps))
}

/** The configuration of a merchant's statement, for a re-check from the console. */
export async function configOfStatement(deps: Deps, scope: Scope, statementId: string) {
  const s = await repo.getStatement(deps.db, scope, statementId)
  if (!s) throw new NotFound()
  const cfg = await getProviderConfig(deps.db, scope.merchantId, s.providerConfigId)
  if (!cfg) throw new NotFound()
  return { statement: s, config: cfg }
}
