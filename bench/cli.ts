/**
 * The command line's start (issue #27: `till --help` within 3× a bare `node -e 0`, `till webhooks
 * listen` ready within 2 s). Each round runs `node -e 0`, `till --help` (bin/till.mjs: the
 * freshness check of dist/ and the compiled CLI) and, for comparison, the CLI from its TypeScript
 * through tsx as `till` ran before dist/, one after the other, so the ratio is taken under the
 * same load; the report gives the median of the per-round ratios. Then `till webhooks listen`
 * against a real Till, timed from the spawn to its "Ready." line.
 *
 * Knobs: BENCH_CLI_ROUNDS (15), BENCH_LISTEN_ROUNDS (10).
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureBuilt } from '../scripts/build.mjs'
import { openBenchDb } from './db.js'
import { context, ms, table } from './report.js'
import { benchMerchant, freePort, startTill } from './till.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS) || 15
const LISTEN_ROUNDS = Number(process.env.BENCH_LISTEN_ROUNDS) || 10
const BIN = path.join(ROOT, 'bin/till.mjs')

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const max = (xs: number[]) => Math.max(...xs)

/** Milliseconds from spawn to exit (or to the first stdout match of `until`, then SIGTERM). */
function timed(args: string[], env: NodeJS.ProcessEnv = process.env, until?: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let at: number | null = null
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d
      if (until && at === null && until.test(out)) {
        at = performance.now() - started
        child.kill('SIGTERM')
      }
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.once('error', reject)
    child.once('close', (code) => {
      if (until ? at === null : code !== 0) reject(new Error(`node ${args.join(' ')} ended with ${code}:\n${out}`))
      else resolve(at ?? performance.now() - started)
    })
  })
}

export async function benchCli(): Promise<string> {
  await ensureBuilt()
  const tsx = ['--conditions=till-source', '--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), '--help']
  const node: number[] = []
  const help: number[] = []
  const source: number[] = []
  console.log(`cli: ${ROUNDS} rounds of node -e 0, till --help, and the CLI from source through tsx`)
  for (let i = 0; i < ROUNDS; i++) {
    node.push(await timed(['-e', '0']))
    help.push(await timed([BIN, '--help']))
    source.push(await timed(tsx))
    console.log(`  round ${i + 1}: node -e 0 ${ms(node[i])}, till --help ${ms(help[i])} (${(help[i] / node[i]).toFixed(2)}×), from source ${ms(source[i])}`)
  }
  const ratio = median(help.map((h, i) => h / node[i]))
  const sourceRatio = median(source.map((s, i) => s / node[i]))

  const db = await openBenchDb(2)
  const till = await startTill(db.url, { TILL_JOBS: '0' })
  const listen: number[] = []
  try {
    const merchant = await benchMerchant(till.base, 'CLI bench')
    const env = { ...process.env, TILL_URL: till.base, TILL_API_KEY: merchant.key }
    console.log(`cli: ${LISTEN_ROUNDS} rounds of till webhooks listen, until "Ready."`)
    for (let i = 0; i < LISTEN_ROUNDS; i++) {
      const args = [BIN, 'webhooks', 'listen', '--forward-to', `http://127.0.0.1:${await freePort()}/hook`]
      listen.push(await timed(args, env, /^Ready\./m))
      console.log(`  round ${i + 1}: ready after ${ms(listen[i])}`)
    }
  } finally {
    await till.stop()
    await db.close()
  }

  return `## The command line: start and readiness

${context([`${ROUNDS} rounds; in each, \`node -e 0\`, \`till --help\` and the CLI from source run one after the other, so each ratio is taken under the same load`])}

${table(['What', 'Median', 'Slowest', 'Median ratio to node -e 0', 'Target'], [
  ['`node -e 0`', ms(median(node)), ms(max(node)), '1', ''],
  ['`till --help` (dist/, bin/till.mjs)', ms(median(help)), ms(max(help)), `${ratio.toFixed(2)}×`, `≤ 3× (${ratio <= 3 ? 'met' : 'missed'})`],
  ['the same from source through tsx (as before dist/)', ms(median(source)), ms(max(source)), `${sourceRatio.toFixed(2)}×`, ''],
  [`\`till webhooks listen\` until "Ready." (${LISTEN_ROUNDS} rounds, a real Till)`, ms(median(listen)), ms(max(listen)), '', `≤ 2 s (${max(listen) <= 2000 ? 'met' : 'missed'})`],
])}`
}
