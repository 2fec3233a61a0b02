/**
 * The client's types narrow as its README says (test/types/*.ts): compiled with tsc --strict, with
 * no error, where each `@ts-expect-error` line must still be an error (TypeScript reports one that
 * is not as "Unused '@ts-expect-error' directive").
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const dir = fileURLToPath(new URL('./types', import.meta.url))
const root = fileURLToPath(new URL('../../..', import.meta.url))

const compile = (files: string[]) => {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')], skipLibCheck: true,
  })
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : ''
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n')
  })
}

test('the example files type-check under --strict, every @ts-expect-error still an error', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f))
  assert.ok(files.length > 0)
  assert.deepEqual(compile(files), [])
  const expected = files.reduce((n, f) => n + (readFileSync(f, 'utf8').match(/@ts-expect-error/g)?.length ?? 0), 0)
  assert.ok(expected >= 8, `${expected} @ts-expect-error lines`)
})
