/**
 * Where a customer who did not pay (failed, canceled, expired) goes back to the merchant
 * (docs/integrate.md#the-way-back-canceled-failed-expired). Pure, so every case is a table row in its test.
 */
import type { SessionStatus } from '../domain/session-machine.js'
import { originOf } from './security.js'

/** The results a customer did not pay in: each offers the way back. */
export const UNPAID_RESULTS: readonly SessionStatus[] = ['failed', 'canceled', 'expired']

const decodeKey = (pair: string) => {
  const key = pair.split('=')[0].replace(/\+/g, ' ')
  try {
    return decodeURIComponent(key)
  } catch {
    return key
  }
}

/**
 * A merchant's URL with our parameters added: theirs kept byte for byte (fragment too), except any
 * named like one of ours (`reserved`, by default those added), which ours replace.
 */
export function withParams(base: string, ours: URLSearchParams, reserved: ReadonlySet<string> = new Set(ours.keys())): string {
  const url = new URL(base)
  const kept = url.search.slice(1).split('&').filter((pair) => pair !== '' && !reserved.has(decodeKey(pair)))
  return `${url.origin}${url.pathname}?${[...kept, ours.toString()].join('&')}${url.hash}`
}

/** cancelUrl with the session's id, so the merchant knows which checkout the customer left. */
export const cancelReturn = (sessionId: string, cancelUrl: string) => withParams(cancelUrl, new URLSearchParams({ session_id: sessionId }))

export interface WayBackSources {
  sessionId: string
  cancelUrl: string | null
  successUrl: string | null
  /** The merchant's support page and email (console Settings). */
  supportUrl: string | null
  supportEmail: string | null
}

/** `return`: a page of the merchant's; `contact`: only an email address to write to. */
export type WayBack = { kind: 'return' | 'contact'; href: string }

/**
 * cancelUrl (with session_id), else the site of successUrl (its origin: a thank-you page is no place
 * for a customer who did not pay), else the support page, else the support email.
 */
export function wayBack(s: WayBackSources): WayBack | null {
  if (s.cancelUrl) return { kind: 'return', href: cancelReturn(s.sessionId, s.cancelUrl) }
  const site = originOf(s.successUrl)
  if (site) return { kind: 'return', href: `${site}/` }
  if (s.supportUrl) return { kind: 'return', href: s.supportUrl }
  if (s.supportEmail) return { kind: 'contact', href: `mailto:${s.supportEmail}` }
  return null
}
