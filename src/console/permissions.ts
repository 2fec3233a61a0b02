/**
 * Which permission (domain/console-roles.ts) each console route needs. A route missing here stops
 * the console from starting (`requirePermissions`), so no page or action is ever left unchecked;
 * test/console/roles.test.ts walks every route with every role against the table.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { allowed, isRole, type Permission } from '../domain/console-roles.js'
import { TillError } from '../domain/errors.js'
import { isMode } from './context.js'

export const ROUTE_PERMISSIONS: Record<string, Permission> = {
  'GET /console': 'read',
  'GET /console/': 'read',
  'GET /console/:mode': 'read',
  'POST /console/logout': 'self',
  'GET /console/:mode/password': 'self',
  'POST /console/:mode/password': 'self',
  'GET /console/:mode/payments': 'read',
  'GET /console/:mode/payments/:id': 'read',
  'POST /console/:mode/payments/:id/refund': 'refund',
  'GET /console/:mode/keys': 'read',
  'POST /console/:mode/keys': 'keys',
  'GET /console/:mode/keys/:id/revoke': 'keys',
  'POST /console/:mode/keys/:id/revoke': 'keys',
  'GET /console/:mode/webhooks': 'read',
  'POST /console/:mode/webhooks': 'webhooks',
  'GET /console/:mode/webhooks/:id': 'read',
  'POST /console/:mode/webhooks/:id/rotate': 'webhooks',
  'POST /console/:mode/webhooks/:id/expire-previous': 'webhooks',
  'POST /console/:mode/webhooks/:id/state': 'webhooks',
  'POST /console/:mode/webhooks/:id/events': 'webhooks',
  'GET /console/:mode/webhooks/:id/delete': 'webhooks',
  'POST /console/:mode/webhooks/:id/delete': 'webhooks',
  'POST /console/:mode/webhooks/:id/test': 'webhooks',
  'POST /console/:mode/webhooks/:id/resend': 'webhooks',
  'GET /console/:mode/providers': 'read',
  'GET /console/:mode/providers/new': 'providers',
  'POST /console/:mode/providers': 'providers',
  'GET /console/:mode/providers/:id': 'read',
  'POST /console/:mode/providers/:id': 'providers',
  'POST /console/:mode/providers/:id/credentials': 'providers',
  'POST /console/:mode/providers/:id/state': 'providers',
  'GET /console/:mode/reconciliation': 'read',
  'GET /console/:mode/reconciliation/:id': 'read',
  'POST /console/:mode/reconciliation/:id/recheck': 'reconciliation',
  'POST /console/:mode/reconciliation/:id/items/:itemId/acknowledge': 'reconciliation',
  'GET /console/:mode/reconciliation/:id/export.csv': 'read',
  'GET /console/:mode/reconciliation/:id/files/:name': 'read',
  'GET /console/:mode/links': 'read',
  'POST /console/:mode/links': 'links',
  'POST /console/:mode/links/:id/deactivate': 'links',
  'POST /console/:mode/links/:id/activate': 'links',
  'GET /console/:mode/links/:id/qr.png': 'read',
  'GET /console/:mode/links/:id/qr.svg': 'read',
  'GET /console/:mode/settings': 'read',
  'POST /console/:mode/settings': 'settings',
  'POST /console/:mode/settings/buyer': 'settings',
  'GET /console/:mode/activity': 'activity',
  'GET /console/:mode/members': 'members.read',
  'POST /console/:mode/members/invite': 'members',
  'POST /console/:mode/members/invitations/withdraw': 'members',
  'POST /console/:mode/members/:id/role': 'members',
  'POST /console/:mode/members/:id/remove': 'members',
  'POST /console/:mode/members/:id/transfer': 'members',
  'GET /console/:mode/sessions': 'self',
  'POST /console/:mode/sessions/end': 'self',
  'POST /console/:mode/members/:id/reset': 'members',
  'GET /console/second-factor': 'self',
  'POST /console/second-factor': 'self',
  'GET /console/:mode/security': 'self',
  'POST /console/:mode/security/enrol': 'self',
  'POST /console/:mode/security/confirm': 'self',
  'POST /console/:mode/security/disable': 'self',
  'POST /console/:mode/security/require': 'members',
  'POST /console/:mode/members/:id/second-factor/reset': 'members',
  'POST /console/:mode/settings/refund-limits': 'settings',
  'GET /console/:mode/activity/export.csv': 'activity',
}

export class Forbidden extends TillError {
  constructor() {
    super(403, 'your role does not allow this')
  }
}

const routeKey = (method: string, url: string) => `${method === 'HEAD' ? 'GET' : method} ${url}`

/** Refuses to register a signed-in route the table does not name. */
export function requirePermissions(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!ROUTE_PERMISSIONS[routeKey(method, route.url)]) throw new Error(`console route ${method} ${route.url} has no permission in console/permissions.ts`)
    }
  })
}

/** The request's route as ROUTE_PERMISSIONS names it. */
export const routeOf = (req: FastifyRequest) => routeKey(req.method, req.routeOptions.url ?? '')

/** Whether the signed-in member's role allows this request; a role Till does not know allows nothing. */
export function permits(req: FastifyRequest, permission: Permission = ROUTE_PERMISSIONS[routeOf(req)]) {
  const { role } = req.consoleSession!.member
  const mode = (req.params as { mode?: string }).mode
  return permission !== undefined && isRole(role) && allowed(role, permission, isMode(mode) ? mode : null)
}
