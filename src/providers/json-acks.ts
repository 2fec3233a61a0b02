/**
 * What Till answers a provider whose webhooks take a JSON acknowledgement: 200 for
 * a notification taken (its facts applied, or ignored with the reason logged), another status with
 * the reason for one the provider should send again or stop sending.
 */
import type { NotificationResult } from './types.js'

export const refuse = (status: number, reason: string): NotificationResult => ({ ack: { status, body: { error: reason } }, facts: [{ kind: 'ignored', reason }] })
export const accept = (facts: NotificationResult['facts']): NotificationResult => ({ ack: { status: 200 }, facts })
export const ignore = (reason: string) => accept([{ kind: 'ignored', reason }])

/** A return or cancel address a provider may be given: an absolute http(s) URL. */
export const isHttpUrl = (u: unknown): u is string => typeof u === 'string' && /^https?:\/\//.test(u) && URL.canParse(u)
