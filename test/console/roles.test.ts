/**
 * Every console route with every role, in both modes, against the one permission table
 * (domain/console-roles.ts): a route the role may not use answers 403 and changes nothing; one it may
 * use answers anything else.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allowed, ROLES, type Role } from '../../src/domain/console-roles.js'
import { ROUTE_PERMISSIONS } from '../../src/console/permissions.js'
import { startTestApp } from '../helpers/app.js'
import { csrfOf, type ConsoleBrowser } from '../helpers/console.js'
import { memberWithRole, signedInOwner } from '../helpers/members.js'

const pathOf = (url: string, mode: string) => url.replace(':mode', mode).replace(/:\w+/g, 'x_unknown')

test('every console route answers each role as the permission table says, in test and live mode', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedInOwner(ta)
  const browsers: Record<Role, ConsoleBrowser> = { owner } as Record<Role, ConsoleBrowser>
  for (const role of ROLES.filter((r) => r !== 'owner')) browsers[role] = (await memberWithRole(ta, owner, role)).browser

  // Signing out last: it ends the session the walk uses.
  const routes = Object.entries(ROUTE_PERMISSIONS).sort(([a], [b]) => Number(a.endsWith('/logout')) - Number(b.endsWith('/logout')))
  const mismatches: string[] = []
  let walked = 0
  for (const role of ROLES) {
    const b = browsers[role]
    const csrf = csrfOf((await b.get('/console/test/sessions')).html)
    for (const [route, permission] of routes) {
      const [method, url] = route.split(' ')
      for (const mode of url.includes(':mode') ? ['test', 'live'] as const : [null]) {
        const path = pathOf(url, mode ?? 'test')
        const res = method === 'GET' ? await b.get(path) : await b.post(path, { csrf })
        const expected = allowed(role, permission, mode)
        if ((res.status === 403) === expected) mismatches.push(`${role} ${method} ${path}: ${res.status}, table says ${expected ? 'allowed' : 'refused'}`)
        if (res.status === 303 && res.location?.startsWith('/console/login') && !path.endsWith('/logout') && !path.endsWith('/remove')) mismatches.push(`${role} ${method} ${path}: signed out`)
        walked++
      }
    }
  }
  assert.deepEqual(mismatches, [])
  assert.ok(walked > ROLES.length * Object.keys(ROUTE_PERMISSIONS).length)
})

test('the table: owner everything, admin all but members, developer test-mode keys, webhooks and providers, support and viewer read', () => {
  assert.equal(allowed('admin', 'members', 'test'), false)
  assert.equal(allowed('admin', 'keys', 'live'), true)
  assert.equal(allowed('developer', 'keys', 'test'), true)
  assert.equal(allowed('developer', 'keys', 'live'), false)
  assert.equal(allowed('developer', 'providers', 'live'), false)
  assert.equal(allowed('viewer', 'read', 'live'), true)
  assert.equal(allowed('viewer', 'refund', 'test'), false)
  assert.equal(allowed('support', 'refund', 'live'), true, 'up to the merchant\'s per-refund limit (domain/refund-limits.ts)')
  assert.equal(allowed('support', 'read', 'live'), true)
  assert.equal(allowed('owner', 'members', 'live'), true)
})
