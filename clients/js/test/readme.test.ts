/**
 * Every js and ts block of the README compiles against the package as a merchant installs it (its
 * dist/ types): each block a module of its own, `till` a client as the README made it, and any
 * other name a block takes from the code around it (`app`, `rawBody`, `session`…) declared `any`.
 * Other packages the recipes import (express, fastify) are `any` too: the client's calls are what
 * is checked. (The Try it block also runs, against a real Till, in scripts/packages.ts.)
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const pkgDir = fileURLToPath(new URL('..', import.meta.url))
const root = path.resolve(pkgDir, '../..')
const { name } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
const readme = readFileSync(path.join(pkgDir, 'README.md'), 'utf8')

interface Block { lang: 'js' | 'ts'; line: number; code: string }
const blocks: Block[] = [...readme.matchAll(/^```(js|ts)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1] as 'js' | 'ts', line: readme.slice(0, m.index).split('\n').length + 1, code: m[2],
}))

/** Diagnostics per file, and the names each file could not find. */
function compile(files: string[], strict: boolean, shim: string) {
  const others = new Set(files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/from '([^'.][^']*)'/g)].map((m) => m[1]))
    .filter((s) => s !== name && !s.startsWith('node:')))
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    strict, noEmit: true, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')], skipLibCheck: true,
    paths: { [name]: [path.join(pkgDir, 'dist', 'index.d.ts')], ...Object.fromEntries([...others].map((s) => [s, [shim]])) },
  })
  const missing = new Map<string, Set<string>>()
  const errors: string[] = []
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file?.fileName ?? ''
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n')
    const unknown = /^(?:Cannot find name|No value exists in scope for the shorthand property) '(\w+)'/.exec(text)
    if (unknown && (d.code === 2304 || d.code === 2552 || d.code === 18004)) {
      if (!missing.has(file)) missing.set(file, new Set())
      missing.get(file)!.add(unknown[1])
    } else {
      errors.push(`${path.basename(file)}:${d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0} ${text}`)
    }
  }
  return { missing, errors }
}

test('every js and ts block of the README compiles against the built package', (t) => {
  assert.ok(blocks.length >= 15, `${blocks.length} blocks`)
  const dir = mkdtempSync(path.join(tmpdir(), 'till-readme-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const shim = path.join(dir, 'any-package.d.ts')
  writeFileSync(shim, 'declare const anyPackage: any\nexport = anyPackage\n')

  const write = (b: Block, declared: Set<string>) => {
    const file = path.join(dir, `readme-line-${b.line}.mts`)
    const prelude = [
      `import type { Till as __Till } from '${name}'`,
      ...(/\b(const|let|var) till\b/.test(b.code) ? [] : ['declare const till: __Till']),
      ...[...declared].map((n) => `declare const ${n}: any`),
    ]
    // The block's own lines keep their numbers after the prelude's one line.
    writeFileSync(file, `${prelude.join('; ')}\n${b.code}\nexport {}\n`)
    return file
  }
  for (const strict of [false, true]) {
    // js blocks as a JavaScript reader takes them (no strictness); ts blocks as a TypeScript user's --strict.
    const mine = blocks.filter((b) => (b.lang === 'ts') === strict)
    const first = compile(mine.map((b) => write(b, new Set())), strict, shim)
    assert.deepEqual(first.errors, [])
    const files = mine.map((b) => write(b, first.missing.get(path.join(dir, `readme-line-${b.line}.mts`)) ?? new Set()))
    const second = compile(files, strict, shim)
    assert.deepEqual([...second.errors, ...[...second.missing].map(([f, n]) => `${path.basename(f)}: ${[...n]}`)], [],
      'the README line of each error is the file\'s line number')
  }
})
