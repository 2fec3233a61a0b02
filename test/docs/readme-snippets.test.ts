/**
 * The READMEs' shell blocks (the root README's and each client's): each parses as bash, and each
 * `till` command in them is one the command line takes (command, subcommand, flags). Each client's
 * own blocks are checked by its tests (clients/js/test/readme.test.ts,
 * clients/python/tests/test_readme.py, clients/go/readme_test.go), and their Try it blocks run
 * against a real Till from the built packages (scripts/packages.ts).
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { ROOT } from '../helpers/process.js'

const READMES = ['README.md', 'clients/js/README.md', 'clients/python/README.md', 'clients/go/README.md']
const shellBlocks = READMES.flatMap((f) => [...readFileSync(path.join(ROOT, f), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
  .map((m) => ({ file: f, code: m[1] })))

/** Words as the shell splits them, for the simple lines of a README: quotes kept together, a comment dropped. */
function words(line: string): string[] {
  const out: string[] = []
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*)|(\S+)/g)) {
    if (m[3] !== undefined) break
    out.push(m[1] ?? m[2] ?? m[4])
  }
  return out
}

test('every shell block of the READMEs parses as bash', () => {
  assert.ok(shellBlocks.length >= 8, `${shellBlocks.length} blocks`)
  for (const b of shellBlocks) execFileSync('bash', ['-n'], { input: b.code, stdio: ['pipe', 'pipe', 'pipe'] })
})

test('every till command in the READMEs\' shell blocks is one the command line takes', () => {
  const commands = shellBlocks.flatMap((b) => b.code.replace(/\\\n/g, ' ').split('\n').map((line) => ({ file: b.file, argv: words(line) })))
    .map(({ file, argv }) => ({ file, argv: argv.slice(argv.findIndex((w) => !/^[A-Z_]+=/.test(w))) }))
    .filter(({ argv }) => argv[0] === 'till')
  assert.ok(commands.length >= 3, `${commands.length} till commands`)
  const problems = JSON.parse(execFileSync(process.execPath, ['--conditions=till-source', '--import', 'tsx', 'test/helpers/cli-parse.ts'], {
    cwd: ROOT, input: JSON.stringify(commands.map((c) => c.argv.slice(1))), encoding: 'utf8',
  })) as (string | null)[]
  assert.deepEqual(commands.map((c, i) => problems[i] && `${c.file}: ${c.argv.join(' ')}: ${problems[i]}`).filter(Boolean), [])
})
