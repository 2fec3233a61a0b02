/**
 * The activity log as CSV, with the page's filters: every entry newest first, read 500 at a time
 * and written as it is read, so a long log never sits in memory. Cells are formula-safe and quoted
 * per RFC 4180, after a byte order mark (../csv.ts).
 */
import { listActivity, type ActivityFilter, type ActivityRow, type ActivityScope } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { BOM, csvRow } from '../csv.js'
import type { ConsoleKey } from '../i18n/index.js'
import type { ConsoleContext } from '../views/layout.js'

export const ACTIVITY_CSV_COLUMNS = ['created_at', 'mode', 'actor', 'member_id', 'action', 'what', 'subject', 'detail', 'ip', 'user_agent'] as const
const BATCH = 500

async function* entries(deps: Deps, scope: ActivityScope, filter: ActivityFilter): AsyncGenerator<ActivityRow> {
  let after: number | undefined
  for (;;) {
    const { rows, hasMore } = await listActivity(deps, scope, filter, { limit: BATCH, startingAfter: after })
    yield* rows
    if (!hasMore) return
    after = rows[rows.length - 1].id
  }
}

export async function* activityCsv(deps: Deps, c: ConsoleContext, scope: ActivityScope, filter: ActivityFilter): AsyncGenerator<string> {
  yield `${BOM}${csvRow([...ACTIVITY_CSV_COLUMNS])}`
  for await (const r of entries(deps, scope, filter)) {
    yield csvRow([
      r.createdAt.toISOString(), r.mode, r.actor, r.memberId, r.action, c.t(`activity.${r.action}` as ConsoleKey),
      r.subject, JSON.stringify(r.detail), r.ip, r.userAgent,
    ])
  }
}
