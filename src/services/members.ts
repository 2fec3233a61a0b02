/**
 * A merchant's team (docs/console.md#members-and-roles): invitations, roles, removal, ownership, and
 * console sessions. Every change takes the merchant's members locked first (repos/members.ts
 * lockMembers), so the rule "a merchant always keeps an owner" holds however requests interleave.
 */
import { isRole, type Role } from '../domain/console-roles.js'
import { InvalidField, NotFound, TillError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Locale } from '../domain/locales.js'
import { hashPassword } from '../security/api-keys.js'
import { newToken, tokenHash } from '../security/tokens.js'
import type { Executor } from '../store/db.js'
import { invitationMails, type InvitationMail } from '../store/repos/member-emails.js'
import * as repo from '../store/repos/members.js'
import { recordActivity } from './activity.js'
import { ABSOLUTE_MS, actorOfSession, checkNewPassword, IDLE_MS, type ConsoleSession } from './console-auth.js'
import { loginEmail, settingEmail } from './merchants.js'
import { queueMemberMail } from './member-mail.js'
import type { Deps } from './deps.js'

/** An invitation's link works this long. */
export const INVITATION_MS = 7 * 24 * 3600_000


export type { InvitationRow, MemberRow } from '../store/repos/members.js'
/** A pending invitation on the Team page, with its mail (null: not mailed, its link was shown to copy). */
export type TeamInvitation = repo.InvitationRow & { mail: InvitationMail | null }

export class LastOwner extends TillError {
  constructor() {
    super(409, 'a merchant keeps at least one owner: make another member owner first')
  }
}

export class NoLongerOwner extends TillError {
  constructor() {
    super(403, 'you are no longer an owner of this merchant: nothing was changed')
  }
}

type Who = { s: ConsoleSession; ip: string; userAgent?: string }

export async function team(deps: Deps, merchantId: string) {
  const [members, pending] = await Promise.all([repo.membersOf(deps.db, merchantId), repo.pendingInvitations(deps.db, merchantId, deps.clock())])
  // Each invitation with its mail, so that an owner sees one that has not arrived.
  const mails = await invitationMails(deps.db, merchantId, pending)
  const invitations = pending.map((i, n) => ({ ...i, mail: mails[n] }))
  return { members, invitations }
}

/**
 * An invitation's link, and whether it was queued to be mailed (when not, the console shows it to
 * copy). The mail is in `locale`, the inviting member's console language.
 */
export async function invite(deps: Deps, w: Who, input: { email: string; role: string; locale: Locale }) {
  const email = loginEmail(input.email.trim())
  if (!isRole(input.role) || input.role === 'owner') throw new InvalidField('role', 'must be admin, developer, support or viewer')
  if (await repo.memberByEmail(deps.db, email)) throw new InvalidField('email', 'already belongs to a console member')
  const token = newToken()
  const now = deps.clock()
  const expiresAt = new Date(now.getTime() + INVITATION_MS)
  const link = `${deps.config.baseUrl}/console/invitations/${token}`
  const merchantId = w.s.merchant.id
  const mailed = await deps.db.transaction(async (tx) => {
    await repo.insertInvitation(tx, { tokenHash: tokenHash(token), merchantId, email, role: input.role, invitedBy: w.s.member.id, createdAt: now, expiresAt })
    return queueMemberMail(tx, deps, { kind: 'invitation', merchantId, to: email, link, locale: input.locale, expiresAt })
  })
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'member_invited', subject: email, detail: { role: input.role, mailed } })
  return { link, mailed, email }
}

export async function withdrawInvitation(deps: Deps, w: Who, tokenHash: string) {
  const email = await repo.withdrawInvitation(deps.db, w.s.merchant.id, tokenHash, deps.clock())
  if (email) await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'invitation_withdrawn', subject: email })
}

/** The invitation behind a link, while it can still be accepted. */
export const openInvitation = (deps: Deps, token: string) => repo.findInvitation(deps.db, tokenHash(token), deps.clock())

/** Accepting: the link is used once (of two racing accepts, one joins), and the member sets a password. */
export async function acceptInvitation(deps: Deps, token: string, password: string, ip: string, userAgent?: string) {
  checkNewPassword(password)
  const hash = await hashPassword(password)
  const now = deps.clock()
  const member = await settingEmail(() => deps.db.transaction(async (tx) => {
    const inv = await repo.claimInvitation(tx, tokenHash(token), now)
    if (!inv) throw new NotFound()
    const row = { id: newId('mem'), merchantId: inv.merchantId, email: inv.email, passwordHash: hash, role: inv.role, createdAt: now }
    await repo.insertMember(tx, row)
    return row
  }))
  await recordActivity(deps, { merchantId: member.merchantId, memberId: member.id, actor: member.email, action: 'member_joined', subject: member.email, detail: { role: member.role }, ip, userAgent })
  return member
}

/**
 * Locks the team, finds `memberId` in it, applies `change`, and refuses any outcome without an owner.
 * The acting member must still be an owner once the team is locked: one removed or demoted by a change
 * that held the lock first was an owner when their request began, and is no longer.
 */
async function changeTeam(deps: Deps, w: Who, memberId: string, change: (target: repo.MemberRow, tx: Executor, now: Date) => Promise<Map<string, Role | null>>) {
  const now = deps.clock()
  return deps.db.transaction(async (tx) => {
    const members = await repo.lockMembers(tx, w.s.merchant.id)
    if (members.find((m) => m.id === w.s.member.id)?.role !== 'owner') throw new NoLongerOwner()
    const target = members.find((m) => m.id === memberId)
    if (!target) throw new NotFound()
    const after = await change(target, tx, now)
    const owners = members.filter((m) => (after.has(m.id) ? after.get(m.id) : m.role) === 'owner')
    if (owners.length === 0) throw new LastOwner()
    return target
  })
}

export async function changeRole(deps: Deps, w: Who, memberId: string, role: string) {
  if (!isRole(role)) throw new InvalidField('role', 'must be owner, admin, developer, support or viewer')
  const target = await changeTeam(deps, w, memberId, async (t, tx) => {
    await repo.setMemberRole(tx, t.id, role)
    return new Map([[t.id, role]])
  })
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'member_role_changed', subject: target.email, detail: { from: target.role, to: role } })
}

/** Removes a member (oneself included, unless the last owner): their sessions end in the same transaction. */
export async function removeMember(deps: Deps, w: Who, memberId: string) {
  const target = await changeTeam(deps, w, memberId, async (t, tx, now) => {
    await repo.markRemoved(tx, t.id, now)
    await repo.revokeMemberSessions(tx, w.s.merchant.id, t.id, null, now)
    return new Map([[t.id, null]])
  })
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'member_removed', subject: target.email, detail: { role: target.role } })
}

/** The acting owner hands ownership to another member and becomes an admin. */
export async function transferOwnership(deps: Deps, w: Who, memberId: string) {
  if (memberId === w.s.member.id) throw new InvalidField('member', 'is you already')
  const target = await changeTeam(deps, w, memberId, async (t, tx) => {
    await repo.setMemberRole(tx, t.id, 'owner')
    await repo.setMemberRole(tx, w.s.member.id, 'admin')
    return new Map<string, Role>([[t.id, 'owner'], [w.s.member.id, 'admin']])
  })
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'ownership_transferred', subject: target.email })
}

/** Open console sessions: the member's own, or (`everyone`) all of the merchant's. */
export async function sessionsOf(deps: Deps, s: ConsoleSession, everyone: boolean) {
  const now = deps.clock().getTime()
  const rows = await repo.openSessions(deps.db, s.merchant.id, new Date(now - IDLE_MS), new Date(now - ABSOLUTE_MS))
  return rows.filter((r) => everyone || r.memberId === s.member.id).map((r) => ({ ...r, current: r.tokenHash === s.tokenHash }))
}

/** Ends one session: one's own, or (`anyones`) any of the merchant's. */
export async function endSession(deps: Deps, w: Who, tokenHash: string, anyones: boolean) {
  const ended = await repo.revokeSessionOf(deps.db, w.s.merchant.id, tokenHash, anyones ? null : w.s.member.id, deps.clock())
  if (!ended) throw new NotFound()
  // The session's member names it: its token's hash is no one's to read.
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'session_ended', subject: ended.memberId })
}
