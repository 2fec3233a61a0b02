/**
 * Who may do what in the console: the one permission table (docs/console.md#members-and-roles is
 * checked against it by test/docs/console-roles.test.ts). Every console route names one permission
 * (console/permissions.ts refuses a route that names none); `allowed` is the only check.
 */
import type { Mode } from './checkout-rules.js'

export const ROLES = ['owner', 'admin', 'developer', 'support', 'viewer'] as const
export type Role = (typeof ROLES)[number]
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v)

/** `true`: in both modes; `'test'`: in test mode only; `false`: never. */
export type Grant = boolean | 'test'

export const PERMISSIONS = {
  /** Payments, their timelines, keys, webhooks, providers, reconciliation, settings: reading them. */
  read: { owner: true, admin: true, developer: true, support: true, viewer: true },
  /** One's own password and sessions, signing out. */
  self: { owner: true, admin: true, developer: true, support: true, viewer: true },
  /** Support refunds up to the merchant's per-refund limit (domain/refund-limits.ts), and not in a currency without one. */
  refund: { owner: true, admin: true, developer: false, support: true, viewer: false },
  keys: { owner: true, admin: true, developer: 'test', support: false, viewer: false },
  webhooks: { owner: true, admin: true, developer: 'test', support: false, viewer: false },
  providers: { owner: true, admin: true, developer: 'test', support: false, viewer: false },
  /** Making, deactivating and activating payment links (each one collects money from anyone who has it). */
  links: { owner: true, admin: true, developer: 'test', support: false, viewer: false },
  reconciliation: { owner: true, admin: true, developer: false, support: false, viewer: false },
  settings: { owner: true, admin: true, developer: false, support: false, viewer: false },
  activity: { owner: true, admin: true, developer: false, support: false, viewer: false },
  /** The member list and pending invitations (every member's sessions: `members`, console/sessions/route.ts). */
  'members.read': { owner: true, admin: true, developer: false, support: false, viewer: false },
  /** Inviting, changing roles, removing members, ending their sessions, transferring ownership. */
  members: { owner: true, admin: false, developer: false, support: false, viewer: false },
} as const satisfies Record<string, Record<Role, Grant>>

export type Permission = keyof typeof PERMISSIONS
export const isPermission = (v: unknown): v is Permission => typeof v === 'string' && Object.hasOwn(PERMISSIONS, v)

export function allowed(role: Role, permission: Permission, mode: Mode | null): boolean {
  const grant: Grant = PERMISSIONS[permission][role]
  return grant === true || (grant === 'test' && mode === 'test')
}

/** The roles a member of `role` may give (only an owner manages members; ownership moves by transfer). */
export const ASSIGNABLE: readonly Role[] = ['admin', 'developer', 'support', 'viewer']
