/**
 * When to ask a provider again about something it has not settled: a refund still `pending`, an
 * attempt still `processing`. Early checks are close together (most settle within a minute), later
 * ones spread out to hourly, so a lost notification is found soon and a stuck one costs little.
 */

/** Seconds to wait before the next query of a pending refund, by queries made so far: 30 s, 1 m, 2 m, 5 m, 10 m, 30 m, then hourly. */
export const REFUND_CHECK_STEPS_S = [30, 60, 120, 300, 600, 1800, 3600] as const

/** Seconds to wait before the next query of a processing attempt: 1 m, 2 m, 5 m, 10 m, 30 m, then hourly. */
export const ATTEMPT_CHECK_STEPS_S = [60, 120, 300, 600, 1800, 3600] as const

const after = (steps: readonly number[], now: Date, checks: number) =>
  new Date(now.getTime() + steps[Math.min(Math.max(checks, 0), steps.length - 1)] * 1000)

/** When to query a pending refund next, `checks` queries having been made (0 at creation). */
export const nextRefundCheck = (now: Date, checks: number): Date => after(REFUND_CHECK_STEPS_S, now, checks)

/** When to query a processing attempt next, `checks` queries having been made. */
export const nextAttemptCheck = (now: Date, checks: number): Date => after(ATTEMPT_CHECK_STEPS_S, now, checks)
