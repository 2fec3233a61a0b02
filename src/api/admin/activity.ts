/**
 * The admin API's part of each merchant's activity log (docs/operate.md#admin-api): every change
 * made through it names the action from one table, the token by its fingerprint (never the token),
 * the operator's name when one was given, the address and the user agent. A non-GET admin route
 * missing from the table stops the admin API from starting, as console/permissions.ts does for the
 * console; test/api/admin-activity.test.ts walks the table.
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Mode } from '../../domain/checkout-rules.js'
import { recordActivity, type ActivityAction } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'

const ADMIN_PREFIX = '/admin/v1'

export const ADMIN_ACTIONS: Record<string, ActivityAction> = {
  'POST /merchants': 'merchant_created',
  'POST /merchants/:id/password': 'password_set',
  'POST /merchants/:id/api_keys': 'key_created',
  'DELETE /merchants/:id/api_keys/:keyId': 'key_revoked',
  'POST /merchants/:id/provider_configs': 'provider_config_created',
  'PATCH /merchants/:id/provider_configs/:configId': 'provider_config_updated',
  'POST /merchants/:id/webhook_endpoints': 'endpoint_created',
  'POST /reconciliation/runs': 'reconciliation_run',
}

/** `admin:` and the first 8 hex digits of the token's SHA-256: a rotated token reads differently, and the token stays secret. */
export const adminActor = (token: string) => `admin:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`

/** The operator's name an admin request may give (`Till-Operator`); it is what they say, not checked. */
const OPERATOR_HEADER = 'till-operator'
const OPERATOR = /^[\p{L}\p{N} ._@+-]{1,64}$/u

const keyOf = (method: string, url: string) => `${method} ${url.startsWith(ADMIN_PREFIX) ? url.slice(ADMIN_PREFIX.length) : url}`
const reads = (method: string) => method === 'GET' || method === 'HEAD'

/** Refuses to register a changing admin route that the table does not name. */
export function requireAdminActions(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!reads(method) && !ADMIN_ACTIONS[keyOf(method, route.url)]) throw new Error(`admin route ${method} ${route.url} has no activity action in api/admin/activity.ts`)
    }
  })
}

export interface AdminEntry {
  /** A second entry of the same request, telling what else it did (the route's own action otherwise). */
  action?: ActivityAction
  mode?: Mode | null
  subject?: string | null
  detail?: Record<string, unknown>
}

/** Records the request's action (from the table, by its route) in `merchantId`'s log. */
export function adminTrail(deps: Deps, token: string) {
  const actor = adminActor(token)
  return (req: FastifyRequest, merchantId: string, e: AdminEntry = {}) => {
    const action = e.action ?? ADMIN_ACTIONS[keyOf(req.method, req.routeOptions.url ?? '')]
    const given = req.headers[OPERATOR_HEADER]
    const operator = typeof given === 'string' && OPERATOR.test(given.trim()) ? given.trim() : undefined
    return recordActivity(deps, {
      merchantId, mode: e.mode, actor, action, subject: e.subject, ip: req.ip, userAgent: req.headers['user-agent'],
      detail: { ...e.detail, ...(operator ? { operator } : {}) },
    })
  }
}
