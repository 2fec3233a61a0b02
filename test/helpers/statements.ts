/** Reading a provider adapter's statement in tests: every item parsed from a ready fetch, its lines without their source, its totals. */
import assert from 'node:assert/strict'
import type { StatementFetch, StatementItem, StatementLine, StatementSource } from '../../src/providers/statements.js'

export async function read(source: StatementSource, f: StatementFetch) {
  assert.equal(f.ready, true, JSON.stringify(f))
  const items: StatementItem[] = []
  for await (const x of source.parse((f as { files: any[] }).files)) items.push(x)
  return items
}
export const lines = (items: StatementItem[]) => items.filter((x): x is StatementLine => x.kind !== 'total').map(({ source: _s, ...rest }) => rest)
export const totals = (items: StatementItem[]) => items.filter((x) => x.kind === 'total')
