/**
 * Keeping a fetched statement's files (docs/reconciliation.md#schedule): each body written to the
 * store in chunks of at most 1 MiB as it arrives, its size and SHA-256 taken on the way. The caller's
 * transaction holds the whole fetch, so a body that throws at its end (a hash that failed) leaves
 * nothing kept.
 */
import { createHash } from 'node:crypto'
import { inMiB } from '../providers/limits.js'
import { StatementRefused, type StatementFile } from '../providers/statements.js'
import type { Tx } from '../store/db.js'
import * as repo from '../store/repos/reconciliation.js'

/** The largest chunk kept in one row. */
const CHUNK_BYTES = 1 << 20

/** The body in pieces of exactly `size` bytes (the last one shorter): small pieces gathered, large ones cut. */
export async function* chunksOf(body: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = []
  let held = 0
  for await (const piece of body) {
    let b = piece
    while (held + b.length >= size) {
      const take = size - held
      yield Buffer.concat([...parts, b.subarray(0, take)])
      parts = []
      held = 0
      b = b.subarray(take)
    }
    if (b.length) {
      // Copied: a producer may reuse the buffer it handed over.
      parts.push(Buffer.from(b))
      held += b.length
    }
  }
  if (held) yield Buffer.concat(parts)
}

/**
 * Replaces the day's kept files with these, each written as it is read; StatementRefused once they
 * hold more than `maxBytes` together (TILL_STATEMENT_MAX_MB), whatever the provider and its format.
 */
export async function keepFiles(tx: Tx, statementId: string, files: AsyncIterable<StatementFile> | Iterable<StatementFile>, now: Date, maxBytes: number) {
  await repo.deleteFiles(tx, statementId)
  let total = 0
  for await (const f of files) {
    await repo.startFile(tx, statementId, f, now)
    const hash = createHash('sha256')
    let size = 0
    let seq = 0
    for await (const chunk of chunksOf(f.body, CHUNK_BYTES)) {
      hash.update(chunk)
      size += chunk.length
      total += chunk.length
      if (total > maxBytes) throw new StatementRefused(`the statement holds more than ${inMiB(maxBytes)}; refused`)
      await repo.insertChunk(tx, statementId, f.name, seq++, chunk)
    }
    await repo.finishFile(tx, statementId, f.name, { size, sha256: hash.digest('hex') })
  }
}
