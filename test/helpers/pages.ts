/** Driving the customer pages over HTTP as a browser without scripts would: GET pages, post forms, follow nothing. */
import type { TestApp } from './app.js'

export interface Page {
  status: number
  html: string
  headers: Headers
  location: string | null
}

export async function getPage(ta: Pick<TestApp, 'baseUrl'>, path: string, headers: Record<string, string> = {}): Promise<Page> {
  const res = await fetch(ta.baseUrl + path, { headers, redirect: 'manual' })
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') }
}

/** The form token of the page (every form on a page carries the same one). */
export function tokenOf(html: string): string {
  const m = /name="token" value="([^"]+)"/.exec(html)
  if (!m) throw new Error('no form token on this page')
  return m[1]
}

export async function postForm(ta: Pick<TestApp, 'baseUrl'>, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
  const res = await fetch(ta.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') }
}

/** Opens the checkout page and posts one of its forms with the page's own token. */
export async function pressButton(ta: Pick<TestApp, 'baseUrl'>, sessionId: string, action: 'pay' | 'fail' | 'cancel' | 'choose', fields: Record<string, string> = {}) {
  const page = await getPage(ta, `/c/${sessionId}`)
  return postForm(ta, `/c/${sessionId}/${action}`, { token: tokenOf(page.html), ...fields })
}

/** Number of <form> elements: a finished session's page must have none. */
export const formCount = (html: string) => (html.match(/<form\b/g) ?? []).length

/** Why the relay's wait ended, from its `Server-Timing: relay;desc=<why>` header: none, signalled, timeout or closed. */
export function relayWait(headers: Headers): string | null {
  return /(?:^|,)\s*relay;desc=(\w+)/.exec(headers.get('server-timing') ?? '')?.[1] ?? null
}
