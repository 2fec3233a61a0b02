/** statement-files.ts: a body cut and gathered into chunks of a fixed size, whatever pieces it arrives in. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { chunksOf } from './statement-files.js'

async function* from(pieces: Buffer[]): AsyncGenerator<Buffer> {
  yield* pieces
}

async function sizes(pieces: Buffer[], size: number) {
  const out: Buffer[] = []
  for await (const c of chunksOf(from(pieces), size)) out.push(c)
  return out
}

test('small pieces are gathered and large ones cut: every chunk full but the last, the bytes in order', async () => {
  const whole = Buffer.from(Array.from({ length: 23 }, (_, i) => i))
  const pieces = [whole.subarray(0, 2), whole.subarray(2, 3), whole.subarray(3, 17), Buffer.alloc(0), whole.subarray(17)]
  const chunks = await sizes(pieces, 5)
  assert.deepEqual(chunks.map((c) => c.length), [5, 5, 5, 5, 3])
  assert.deepEqual(Buffer.concat(chunks), whole)
  assert.deepEqual((await sizes([whole.subarray(0, 10)], 5)).map((c) => c.length), [5, 5])
  assert.deepEqual(await sizes([], 5), [])
})

test('a piece its producer reuses afterwards does not change a chunk already gathered', async () => {
  const reused = Buffer.from('abc')
  async function* producer() {
    yield reused
    reused.write('xyz')
    yield Buffer.from('de')
  }
  const out: string[] = []
  for await (const c of chunksOf(producer(), 4)) out.push(c.toString())
  assert.deepEqual(out, ['abcd', 'e'])
})
