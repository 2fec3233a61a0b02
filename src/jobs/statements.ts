/**
 * The daily reconciliation job (docs/reconciliation.md): for every enabled configuration whose
 * provider has statements, each day of the last week up to yesterday in the provider's zone that is
 * not reconciled yet and whose next try has come; and the days with an `expected` item whose grace
 * is over. Each day is leased (services/reconciliation.ts), so instances never run one twice at once.
 */
import { dayIn, daysToReconcile } from '../domain/reconciliation.js'
import type { Deps } from '../services/deps.js'
import { providersWithStatements, runDay, sourceOf } from '../services/reconciliation.js'
import { getProviderConfigUnscoped, listEnabledUnscoped } from '../store/repos/provider-configs.js'
import * as repo from '../store/repos/reconciliation.js'

/** The job looks at this many days up to yesterday; older ones are run by hand (till reconcile). */
export const LOOKBACK_DAYS = 7

/** The daily job: every enabled configuration whose provider has statements, each due day of the last week up to yesterday in its zone. */
export async function reconcileDueDays(deps: Deps): Promise<number> {
  const now = deps.clock()
  const configs = await listEnabledUnscoped(deps.db, providersWithStatements(deps))
  const wanted = configs.map((cfg) => {
    const zone = sourceOf(deps, cfg.provider)!.zone
    return { cfg, days: daysToReconcile(now, zone, dayIn(cfg.createdAt, zone), LOOKBACK_DAYS) }
  })
  const known = await repo.statementsOn(deps.db, configs.map((c) => c.id), [...new Set(wanted.flatMap((w) => w.days))])
  const byKey = new Map(known.map((s) => [`${s.providerConfigId}|${s.day}`, s]))
  let runs = 0
  for (const { cfg, days } of wanted) {
    for (const day of days) {
      const s = byKey.get(`${cfg.id}|${day}`)
      const due = !s || (s.state !== 'reconciled' && (!s.nextTryAt || s.nextTryAt <= now))
      if (!due) continue
      try {
        if (await runDay(deps, cfg, day, { force: false, cascade: true })) runs++
      } catch (e) {
        deps.log.warn({ err: e, configId: cfg.id, day }, 'reconciliation run failed; will retry')
      }
    }
  }
  // An `expected` item whose grace is over is a mismatch now, unless its counterpart came: run its day again.
  for (const id of await repo.statementsWithLapsedExpected(deps.db, now, 20)) {
    const s = (await repo.getStatementUnscoped(deps.db, id))!
    const cfg = await getProviderConfigUnscoped(deps.db, s.providerConfigId)
    if (!cfg || !sourceOf(deps, cfg.provider)) continue
    try {
      if (await runDay(deps, cfg, s.day, { force: true, cascade: true })) runs++
    } catch (e) {
      deps.log.warn({ err: e, statementId: id }, 'reconciliation run failed; will retry')
    }
  }
  return runs
}
