/**
 * A provider is one folder (issue #24 §1): outside src/providers/<id>/, at most two non-test source
 * files name its id (the list in src/providers/index.ts, and at most one piece of wiring), and the
 * docs' credential tables list exactly the fields each module declares.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { ROOT } from '../helpers/process.js'

const SRC = path.join(ROOT, 'src')
/** Folders under src/providers that are not a provider: the test-mode mock (core) and the fakes' shared kit. */
const NOT_PROVIDERS = new Set(['mock', 'fake-kit'])

const providerFolders = () =>
  readdirSync(path.join(SRC, 'providers'), { withFileTypes: true }).filter((d) => d.isDirectory() && !NOT_PROVIDERS.has(d.name)).map((d) => d.name)

const sources = (readdirSync(SRC, { recursive: true }) as string[])
  .filter((f) => /\.(tsx?|js|css)$/.test(f) && !/\.test\.tsx?$/.test(f))
  .map((f) => f.split(path.sep).join('/'))

/** Non-test source files outside the provider's folder that name its id as a word. */
const namingFiles = (id: string) =>
  sources.filter((f) => !f.startsWith(`providers/${id}/`) && new RegExp(`\\b${id}\\b`).test(readFileSync(path.join(SRC, f), 'utf8')))

test('outside its folder, at most 2 non-test source files name a provider', () => {
  const folders = providerFolders()
  assert.ok(folders.length >= 2, `provider folders: ${folders.join(', ')}`)
  for (const id of folders) {
    const files = namingFiles(id)
    assert.ok(files.length <= 2, `${files.length} files outside src/providers/${id}/ name ${id}:\n  ${files.join('\n  ')}`)
  }
})

test('every provider folder is in the one list, and the list names only those folders', async () => {
  const { PROVIDERS } = await import('../../src/providers/index.js')
  assert.deepEqual(PROVIDERS.map((p) => p.id).sort(), providerFolders().sort())
})

test('docs/providers.md: each provider\'s credentials table lists exactly its module\'s fields', async () => {
  const { PROVIDERS } = await import('../../src/providers/index.js')
  const doc = readFileSync(path.join(ROOT, 'docs/providers.md'), 'utf8')
  for (const p of PROVIDERS) {
    const start = doc.indexOf(`\n## ${p.name.en} (\`${p.id}\`)`)
    assert.ok(start >= 0, `docs/providers.md has a section "## ${p.name.en} (\`${p.id}\`)"`)
    const end = doc.indexOf('\n## ', start + 1)
    const section = doc.slice(start, end < 0 ? undefined : end)
    const table = /\n### Credentials[^\n]*\n(?:[^\n]*\n)*?\| Field \|[^\n]*\n\|[-| ]+\|\n((?:\|[^\n]*\n)+)/.exec(section)
    assert.ok(table, `${p.id}: a table under "### Credentials" with a Field column`)
    const documented = table[1].split('\n').filter(Boolean).flatMap((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]))
    assert.deepEqual(documented.filter((f) => !f.startsWith('settings.')).sort(), p.credentials.map((f) => f.name).sort(), `${p.id}: docs table vs module`)
  }
})

test('docs/architecture.md: a line that lists providers by id lists every one of them', async () => {
  const { PROVIDERS } = await import('../../src/providers/index.js')
  const ids = PROVIDERS.map((p) => p.id)
  const lines = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8').split('\n')
  const short = lines.flatMap((line, i) => {
    const named = ids.filter((id) => new RegExp(`\\b${id}\\b`).test(line))
    return named.length >= 2 && named.length < ids.length ? [`line ${i + 1} lacks ${ids.filter((id) => !named.includes(id)).join(', ')}: ${line.trim()}`] : []
  })
  assert.deepEqual(short, [])
})
