/** docs/console.md's permission table says what src/domain/console-roles.ts grants, cell by cell. */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { PERMISSIONS, ROLES } from '../../src/domain/console-roles.js'
import { ROOT } from '../helpers/process.js'

test('the roles table in docs/console.md is the one in the code', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/console.md'), 'utf8')
  const table = /<!-- roles-table -->\n([\s\S]*?)<!-- \/roles-table -->/.exec(doc)
  assert.ok(table, 'docs/console.md has the roles table')
  const [head, , ...rows] = table[1].trim().split('\n').map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))
  assert.deepEqual(head.slice(2), [...ROLES])
  const documented = Object.fromEntries(rows.map((r) => [r[0], Object.fromEntries(ROLES.map((role, i) => [role, r[i + 2]]))]))
  const word = (g: boolean | 'test') => (g === 'test' ? 'test' : g ? 'yes' : 'no')
  const code = Object.fromEntries(Object.entries(PERMISSIONS).map(([p, grants]) => [p, Object.fromEntries(ROLES.map((role) => [role, word(grants[role])]))]))
  assert.deepEqual(documented, code)
})
