/**
 * Every migration through squawk, a linter for PostgreSQL migrations (docs/operate.md, "Upgrades"):
 * what it finds must be written down in src/store/migration-lint.json, as a rule the runner makes
 * moot or an exception for one file with its count and reason. A new migration gets no exception:
 * it takes no lock that blocks reads or writes for more than a moment.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { ROOT } from '../helpers/process.js'

interface Finding { file: string; rule_name: string; line: number; message: string }
interface Exception { file: string; rule: string; count: number; why: string }

const MIGRATIONS = path.join(ROOT, 'src/store/migrations')
/** Installed by the project's script into a cache outside the clone (scripts/squawk.sh). */
const SQUAWK = execFileSync('bash', [path.join(ROOT, 'scripts/squawk.sh')], { encoding: 'utf8' }).trim()
const config = JSON.parse(readFileSync(path.join(ROOT, 'src/store/migration-lint.json'), 'utf8')) as {
  pgVersion: string
  excludedRules: Record<string, string>
  exceptions: Exception[]
}

/** squawk's findings for these SQL files (it exits 1 when it finds any). */
function lint(files: string[]): Finding[] {
  const args = ['--reporter', 'json', '--pg-version', config.pgVersion, '--exclude', Object.keys(config.excludedRules).join(','), ...files]
  let out: string
  try {
    out = execFileSync(SQUAWK, args, { encoding: 'utf8' })
  } catch (e) {
    out = (e as { stdout?: string }).stdout ?? ''
    if (!out.trim().startsWith('[')) throw e
  }
  return JSON.parse(out || '[]')
}

test('squawk finds in the migrations only what src/store/migration-lint.json excepts, file by file and rule by rule', () => {
  const files = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort()
  const found = new Map<string, number>()
  for (const f of lint(files.map((f) => path.join(MIGRATIONS, f)))) {
    const key = `${path.basename(f.file)} ${f.rule_name}`
    found.set(key, (found.get(key) ?? 0) + 1)
  }
  const excepted = new Map(config.exceptions.map((e) => [`${e.file} ${e.rule}`, e.count]))
  const unexcepted = [...found].filter(([key, n]) => excepted.get(key) !== n).map(([key, n]) => `${key}: ${n} finding(s), excepted ${excepted.get(key) ?? 0}`)
  assert.deepEqual(unexcepted, [], 'fix the migration (docs/operate.md, "Upgrades"), or write the exception down with its reason')
  const stale = [...excepted.keys()].filter((key) => !found.has(key))
  assert.deepEqual(stale, [], 'exceptions that no longer match a finding')
  assert.ok(config.exceptions.every((e) => e.why.length > 20 && files.includes(e.file)))
})

test('the linter flags what blocks writes in a new migration: a plain CREATE INDEX, a NOT NULL column without a default, a column renamed', () => {
  const dir = path.join(ROOT, 'testdata/migration-lint')
  const rules = (file: string) => [...new Set(lint([path.join(dir, file)]).map((f) => f.rule_name))].sort()
  assert.deepEqual(rules('blocking.sql'), ['adding-required-field', 'renaming-column', 'require-concurrent-index-creation'])
  assert.deepEqual(rules('safe.sql'), [], 'a nullable column, one with a constant default')
  assert.deepEqual(rules('safe-index.sql'), [], 'an index built CONCURRENTLY')
})
