/**
 * The documentation a newcomer reads (issue #12 §7): a README that fits on a few screens, links that
 * lead somewhere (files and their headings), and nothing that points outside the repository.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { PROVIDERS } from '../../src/providers/index.js'
import { ROOT } from '../helpers/process.js'

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean)
const markdown = tracked.filter((f) => f.endsWith('.md'))

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-')
const anchorsOf = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1])))

test('the README is the front door: under 200 lines, with the two commands and a map of docs/', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  assert.ok(readme.split('\n').length < 200, `README.md has ${readme.split('\n').length} lines`)
  assert.match(readme, /npm ci && npm start/)
  assert.match(readme, /npm ci && npm test/)
  assert.match(readme, /till keys create/)
  for (const doc of ['docs/integrate.md', 'docs/operate.md', 'docs/architecture.md', 'docs/providers.md', 'docs/benchmarks.md', 'docs/scaling.md', 'docs/errors.md', 'docs/console.md',
    'clients/js/README.md', 'clients/python/README.md', 'clients/go/README.md']) {
    assert.ok(readme.includes(`](${doc})`), `README links ${doc}`)
  }
})

test('what `npm pack` leaves (the root\'s and a workspace\'s tarballs) is ignored by git', () => {
  for (const file of ['till-payments-till-0.1.0.tgz', 'clients/js/till-payments-node-0.1.0.tgz']) {
    // git check-ignore exits 0 when the path is ignored, 1 when not.
    assert.doesNotThrow(() => execFileSync('git', ['check-ignore', '-q', file], { cwd: ROOT }), file)
  }
})

test('the Medusa plugin\'s README names every provider Till has', () => {
  const readme = readFileSync(path.join(ROOT, 'clients/medusa/README.md'), 'utf8')
  for (const p of PROVIDERS) assert.ok(readme.includes(p.name.en), p.name.en)
})

test('no file in the repository refers to documents outside it', () => {
  const outside = /\.\.\/shared|\bshared\/(spec|DESIGN)|\b(INTERFACE|DESIGN|STYLE|STACK|PROTOCOLS)\.md\b/
  const hits = tracked
    .filter((f) => !f.endsWith('package-lock.json') && f !== 'test/docs/repository-docs.test.ts' && existsSync(path.join(ROOT, f)))
    .flatMap((f) => readFileSync(path.join(ROOT, f), 'utf8').split('\n').map((line, i) => [f, i + 1, line] as const))
    .filter(([, , line]) => outside.test(line))
    .map(([f, n, line]) => `${f}:${n}: ${line.trim()}`)
  assert.deepEqual(hits, [])
})

test('every relative link in the Markdown files leads to a file, and to a heading in it', () => {
  const broken: string[] = []
  for (const file of markdown) {
    const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue
      const [file2, hash] = target.split('#')
      const resolved = file2 ? path.join(ROOT, path.dirname(file), file2) : path.join(ROOT, file)
      if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`)
      else if (hash && resolved.endsWith('.md') && !anchorsOf(resolved).has(hash)) broken.push(`${file}: ${target} (no such heading)`)
    }
  }
  assert.deepEqual(broken, [])
})

test('nothing tells anyone to run `npx till`: outside a checkout it fetches an unrelated npm package', () => {
  const hits = tracked
    .filter((f) => !f.endsWith('package-lock.json') && f !== 'test/docs/repository-docs.test.ts' && existsSync(path.join(ROOT, f)))
    .flatMap((f) => readFileSync(path.join(ROOT, f), 'utf8').split('\n').map((line, i) => [f, i + 1, line] as const))
    .filter(([, , line]) => /\bnpx\s+till\b/.test(line))
    .map(([f, n, line]) => `${f}:${n}: ${line.trim()}`)
  assert.deepEqual(hits, [])
})

test('every curl whose URL has [ or ] says -g: curl reads them as a glob otherwise', () => {
  const hits = markdown.flatMap((f) => readFileSync(path.join(ROOT, f), 'utf8').split('\n').map((line, i) => [f, i + 1, line] as const))
    .filter(([, , line]) => /\bcurl\b/.test(line) && /https?:\/\/\S*[[\]]/.test(line) && !/\s(-g|--globoff|-\w*g\w*)\s/.test(line))
    .map(([f, n, line]) => `${f}:${n}: ${line.trim()}`)
  assert.deepEqual(hits, [])
})
