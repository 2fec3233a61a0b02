/** Reading a provider adapter's statement in tests: every item parsed from a ready fetch, its lines without their source, its totals. */
import assert from 'node:assert/strict'
import type { StatementItem, StatementLine, StatementSource } from '../../src/providers/statements.js'
import type { WholeFetch } from './reconciliation.js'

/** `f` as fetchWhole (helpers/reconciliation.ts) reads a fetch: each file's bytes kept, to parse again. */
export async function read(source: StatementSource, f: WholeFetch) {
  assert.equal(f.ready, true, JSON.stringify(f))
  const items: StatementItem[] = []
  for await (const x of source.parse((f as { files: any[] }).files)) items.push(x)
  return items
}
export const lines = (items: StatementItem[]) => items.filter((x): x is StatementLine => x.kind !== 'total').map(({ source: _s, ...rest }) => rest)
export const totals = (items: StatementItem[]) => items.filter((x) => x.kind === 'total')
