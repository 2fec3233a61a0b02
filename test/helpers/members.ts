/** Team members made through the console as a person would: the owner invites, the link is opened and accepted. */
import { ConsoleBrowser, signedIn } from './console.js'
import type { TestApp } from './app.js'

/** A member's id, from their row on the Team page. */
export const memberIdOf = (html: string, email: string) => {
  const row = new RegExp(`data-member="${email.replace(/[.]/g, '\\.')}"[\\s\\S]*?/members/(mem_\\w+)/`).exec(html)
  if (!row) throw new Error(`no row for ${email}`)
  return row[1]
}

/** The one-time link the members page shows when no mail was sent. */
export const inviteLinkOf = (html: string) => {
  const m = /id="shown-once-value">([^<]+)</.exec(html)
  if (!m) throw new Error('no invitation link on this page')
  return m[1].replaceAll('&amp;', '&')
}

export async function invite(owner: ConsoleBrowser, email: string, role: string) {
  const res = await owner.submit('/console/test/members', '/console/test/members/invite', { email, role })
  if (res.status !== 200) throw new Error(`invite: ${res.status}`)
  return inviteLinkOf(res.html)
}

/** A signed-in browser of a new member with `role`, invited by `owner`. */
export async function memberWithRole(ta: TestApp, owner: ConsoleBrowser, role: string, email = `${role}.${Math.random().toString(36).slice(2, 8)}@example.com`) {
  const link = await invite(owner, email, role)
  const b = new ConsoleBrowser(ta)
  const accepted = await b.post(new URL(link).pathname, { password: 'member password 1' })
  if (accepted.status !== 303) throw new Error(`accept: ${accepted.status}`)
  const res = await b.signIn(email, 'member password 1')
  if (res.status !== 303) throw new Error(`sign-in: ${res.status}`)
  return { browser: b, email, password: 'member password 1' }
}

/** A merchant's owner, signed in. */
export const signedInOwner = (ta: TestApp, name?: string) => signedIn(ta, { name })
