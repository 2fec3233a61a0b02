/**
 * Helpers for statement adapters (statements.ts): a file's bytes as a stream, checked, decompressed
 * and read line by line without ever holding the whole file.
 */
import { createHash } from 'node:crypto'
import { pipeline, Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { inMiB } from './limits.js'
import { StatementNotReady, StatementRefused, type StatementFetch, type StatementFile } from './statements.js'
import { ProviderError } from './types.js'

/** A whole buffer as a body: how an adapter that has one hands it over. */
export async function* oneChunk(b: Buffer): AsyncGenerator<Buffer> {
  if (b.length) yield b
}

/**
 * A body gathered whole: for a small file (a page of JSON) or a format that needs its end first.
 * Past `maxBytes`, `tooLarge()` is thrown and the body left (a download's connection closed).
 */
export async function gathered(body: AsyncIterable<Buffer>, maxBytes = Infinity, tooLarge?: () => Error): Promise<Buffer> {
  const parts: Buffer[] = []
  let size = 0
  for await (const c of body) {
    size += c.length
    if (size > maxBytes) throw tooLarge?.() ?? new Error(`more than ${maxBytes} bytes`)
    parts.push(c)
  }
  return Buffer.concat(parts)
}

/**
 * The body in pieces of at most `size` bytes, other work let through (setImmediate) before each: a
 * parser that takes a whole chunk at once (csv-parse) would otherwise hold the event loop, which
 * serves every merchant, for all of a kept file's 1 MiB rows (about 0.3 s of Alipay's bill).
 */
export async function* inPieces(body: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  for await (const c of body) {
    for (let at = 0; at < c.length; at += size) {
      await new Promise((resolve) => setImmediate(resolve))
      yield c.subarray(at, at + size)
    }
  }
}

/**
 * The body passed through while its `algorithm` digest is taken; at its end, a digest other than
 * `expected` (hex, any case) throws `mismatch()`: a fetch's StatementNotReady, and the fetch is undone.
 */
export async function* hashChecked(body: AsyncIterable<Buffer>, algorithm: string, expected: string, mismatch: () => Error): AsyncGenerator<Buffer> {
  const hash = createHash(algorithm)
  for await (const c of body) {
    hash.update(c)
    yield c
  }
  if (hash.digest('hex') !== expected.toLowerCase()) throw mismatch()
}

/**
 * The body gunzipped as it arrives; a stream that is not whole gzip throws StatementNotReady with
 * `reason`, one that unpacks to more than `maxBytes` StatementRefused (a gzip bomb), both closing the download.
 */
export async function* gunzipped(body: AsyncIterable<Buffer>, reason: string, o: { retryAfterS?: number; maxBytes: number }): AsyncGenerator<Buffer> {
  // pipeline destroys both sides on an error (the HTTP answer too) and hands it to the reader.
  const out = pipeline(Readable.from(body), createGunzip(), () => {})
  let size = 0
  try {
    for await (const c of out) {
      size += (c as Buffer).length
      if (size > o.maxBytes) throw new StatementRefused(`the file unpacks to more than ${inMiB(o.maxBytes)}; refused`)
      yield c as Buffer
    }
  } catch (e) {
    if (e instanceof StatementNotReady || e instanceof StatementRefused) throw e
    throw new StatementNotReady(reason, o.retryAfterS)
  } finally {
    out.destroy()
  }
}

const BOM = '\ufeff'

/**
 * The body's lines, decoded one at a time as UTF-8 (a day may hold 100,000 of them), numbered from 1
 * with empty lines counted but not given; a leading byte order mark and each line's `\r` dropped.
 * Lines split on byte 0x0a, which is never part of a multi-byte character in UTF-8 (nor in GBK).
 */
export async function* textLines(body: AsyncIterable<Buffer>): AsyncGenerator<{ text: string; line: number }> {
  let rest: Buffer = Buffer.alloc(0)
  let line = 0
  const decoded = (b: Buffer) => {
    let text = b.toString('utf8')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (line === 0 && text.startsWith(BOM)) text = text.slice(1)
    line++
    return text
  }
  for await (const chunk of body) {
    const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk
    let start = 0
    for (let end = buf.indexOf(0x0a, start); end >= 0; end = buf.indexOf(0x0a, start)) {
      const text = decoded(buf.subarray(start, end))
      start = end + 1
      if (text !== '') yield { text, line }
    }
    // Copied: the chunk may be a view into a buffer its producer reuses.
    rest = Buffer.from(buf.subarray(start))
  }
  if (rest.length) {
    const text = decoded(rest)
    if (text !== '') yield { text, line }
  }
}

export const UTC_DAY_MS = 24 * 3600_000
/** An hour after a UTC day ends, its last transactions are listed. */
const UTC_DAY_SETTLE_MS = 3600_000

/** A kept file of one JSON value (a provider's page of a day, as it answered). */
export const keptJson = (name: string, value: unknown): StatementFile =>
  ({ name, body: oneChunk(Buffer.from(JSON.stringify(value))), type: 'application/json' })

/**
 * A provider whose day is UTC and complete an hour after it ends: the day's files
 * once it is, otherwise when to ask again.
 */
export function utcDayFetch(provider: string, day: string, now: Date, files: (from: number) => AsyncIterable<StatementFile>): StatementFetch {
  const from = Date.parse(`${day}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(from)) throw new ProviderError('rejected', 'invalid_day', `not a day: ${day}`, false)
  const wait = from + UTC_DAY_MS + UTC_DAY_SETTLE_MS - now.getTime()
  if (wait > 0) return { ready: false, reason: `${day} (UTC) is not over at ${provider} yet`, retryAfterS: Math.ceil(wait / 1000) }
  return { ready: true, files: files(from) }
}
