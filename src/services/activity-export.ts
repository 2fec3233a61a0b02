/** The activity log as the admin API gives it out (docs/operate.md#admin-api): a page of entries, filtered, with its cursor. */
import { InvalidField, NotFound } from '../domain/errors.js'
import { getMerchant } from '../store/repos/merchants.js'
import type { ActivityRow } from '../store/repos/console-activity.js'
import { isActivityAction, listActivity, type ActivityFilter } from './activity.js'
import type { Deps } from './deps.js'

export interface ActivityPageQuery {
  limit?: number
  startingAfter?: string
  endingBefore?: string
  member?: string
  action?: string
  since?: string
  until?: string
}

export const activityView = (r: ActivityRow) => ({
  id: r.id,
  createdAt: r.createdAt.toISOString(),
  mode: r.mode,
  actor: r.actor,
  memberId: r.memberId,
  action: r.action,
  subject: r.subject,
  detail: r.detail,
  ip: r.ip,
  userAgent: r.userAgent,
})

/** Every mode's entries of one merchant, newest first; `hasMore` says whether a page lies beyond, in the direction paged. */
export async function merchantActivity(deps: Deps, merchantId: string, q: ActivityPageQuery) {
  if (q.action !== undefined && !isActivityAction(q.action)) throw new InvalidField('action', 'is not an action the activity log records')
  if (q.startingAfter !== undefined && q.endingBefore !== undefined) throw new InvalidField('ending_before', 'cannot be given with starting_after')
  if (!(await getMerchant(deps.db, merchantId))) throw new NotFound()
  const filter: ActivityFilter = {
    memberId: q.member,
    action: q.action,
    since: q.since === undefined ? undefined : new Date(q.since),
    until: q.until === undefined ? undefined : new Date(q.until),
  }
  const { rows, hasMore } = await listActivity(deps, { merchantId, mode: 'every' }, filter, {
    limit: q.limit ?? 20,
    startingAfter: q.startingAfter === undefined ? undefined : Number(q.startingAfter),
    endingBefore: q.endingBefore === undefined ? undefined : Number(q.endingBefore),
  })
  return { data: rows.map(activityView), hasMore }
}
