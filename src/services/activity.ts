/** The console's activity log: who did what and when, kept in the database. */
import type { Mode } from '../domain/checkout-rules.js'
import * as repo from '../store/repos/console-activity.js'
import type { Scope } from '../store/repos/scope.js'
import type { Deps } from './deps.js'

export type { ActivityRow, DeliverySummary } from '../store/repos/console-activity.js'

export interface ActivityEntry {
  merchantId: string
  mode?: Mode | null
  actor: string
  action: ActivityAction
  subject?: string | null
  detail?: Record<string, unknown>
  ip?: string | null
  /** The member who acted, when a member did. */
  memberId?: string | null
  userAgent?: string | null
}

/**
 * Records an entry once the change it tells of has committed (docs/console.md#the-activity-log).
 * An entry the database refuses is never dropped silently: it is logged whole at error level, and
 * the change, already made, is still answered as made.
 */
export async function recordActivity(deps: Deps, e: ActivityEntry) {
  const row = {
    merchantId: e.merchantId,
    mode: e.mode ?? null,
    actor: e.actor,
    action: e.action,
    // An entry naming nothing else touched the member's own account (a sign-in, a password).
    subject: e.subject ?? (e.memberId ? e.actor : null),
    detail: e.detail ?? {},
    ip: e.ip ?? null,
    memberId: e.memberId ?? null,
    userAgent: e.userAgent?.slice(0, 300) ?? null,
    createdAt: deps.clock(),
  }
  try {
    await repo.insertActivity(deps.db, row)
  } catch (err) {
    deps.log.error({ err, activity: row }, 'activity entry not recorded: the change it tells of was made')
  }
}

/** Every action the log records, in the order the filters list them (the console's list, the admin API's check). */
export const ACTIVITY_ACTIONS = [
  'sign_in', 'sign_in_failed', 'sign_out', 'password_changed', 'password_change_failed', 'password_set', 'console_login_cleared',
  'key_created', 'key_revoked',
  'provider_config_created', 'provider_config_updated',
  'endpoint_created', 'endpoint_updated', 'endpoint_deleted', 'endpoint_secret_rotated', 'endpoint_previous_secrets_expired', 'endpoint_test_sent', 'event_resent',
  // Recorded by the delivery worker (store/repos/deliveries.ts), actor `Till`.
  'endpoint_disabled_failing',
  'refund_created', 'settings_updated',
  'reconciliation_rechecked', 'mismatch_acknowledged',
  'member_invited', 'invitation_withdrawn', 'member_joined', 'member_role_changed', 'member_removed', 'ownership_transferred', 'session_ended',
  'link_created', 'link_deactivated', 'link_activated',
  // Recorded by the admin API (api/admin/activity.ts), actor `admin:` and the token's fingerprint.
  'merchant_created', 'reconciliation_run',
  'activity_exported',
  'password_reset_requested', 'password_reset_link_made', 'password_reset',
  'second_factor_enrolment_started', 'second_factor_enabled', 'second_factor_disabled', 'second_factor_passed', 'second_factor_failed', 'recovery_code_used', 'second_factor_reset',
  'second_factor_policy_changed', 'refund_limits_changed',
] as const

export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number]

export const isActivityAction = (v: string): v is ActivityAction => (ACTIVITY_ACTIONS as readonly string[]).includes(v)

export type { ActivityFilter, ActivityScope } from '../store/repos/console-activity.js'

/** A page of the log, newest first; see the repo for the cursor. */
export const listActivity = (deps: Deps, scope: repo.ActivityScope, filter: repo.ActivityFilter, page: { limit: number; startingAfter?: number; endingBefore?: number }) =>
  repo.listActivity(deps.db, scope, filter, page)

const DAY_MS = 86_400_000

/** Drops the entries older than ACTIVITY_RETENTION_DAYS (none when it is 0); how many went. */
export async function purgeOldActivity(deps: Deps) {
  const days = deps.config.activityRetentionDays
  if (days === 0) return 0
  return repo.purgeActivity(deps.db, new Date(deps.clock().getTime() - days * DAY_MS))
}

export const membersEver = (deps: Deps, merchantId: string) => repo.membersEver(deps.db, merchantId)

/** A payment's timeline for the console: the events naming its session, oldest first, with their deliveries. */
export const sessionTimeline = (deps: Deps, scope: Scope, sessionId: string) => repo.timelineOfSession(deps.db, scope, sessionId)
