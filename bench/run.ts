/**
 * `npm run bench`: every benchmark, or the ones named (`npm run bench -- api scale`). Each prints
 * its results beside a ceiling measured in the same run, and rewrites its own section of
 * docs/benchmarks.md (bench/report.ts).
 */
import os from 'node:os'
import { benchApi } from './api.js'
import { benchCli } from './cli.js'
import { benchConsole } from './console.js'
import { benchConsolePage } from './console-page.js'
import { benchFailover } from './failover.js'
import { benchKeyed } from './keyed.js'
import { benchLatency } from './latency.js'
import { benchMemory } from './memory.js'
import { benchReconciliation } from './reconciliation.js'
import { benchProfile } from './profile-bench.js'
import { benchProviders } from './providers.js'
import { benchRelay } from './relay.js'
import { writeSection } from './report.js'
import { names as benchNames } from './run-options.js'
import { benchScale } from './scale.js'
import { benchStatements } from './statements.js'
import { benchTracing } from './tracing.js'
import { benchWebhooks } from './webhooks.js'

const BENCHES: Record<string, () => Promise<string>> = {
  api: benchApi,
  cli: benchCli,
  console: benchConsole,
  'console-page': benchConsolePage,
  failover: benchFailover,
  keyed: benchKeyed,
  latency: benchLatency,
  memory: benchMemory,
  profile: benchProfile,
  providers: benchProviders,
  reconciliation: benchReconciliation,
  relay: benchRelay,
  scale: benchScale,
  statements: benchStatements,
  tracing: benchTracing,
  webhooks: benchWebhooks,
}

/** Run only when named: `keyed` repeats the api bench's keyed rounds at length (issue #37) and would push a full run past 25 minutes. */
const NAMED_ONLY = new Set(['keyed'])

const names = benchNames()
for (const name of names) if (!BENCHES[name]) throw new Error(`unknown bench ${name}; known: ${Object.keys(BENCHES).join(', ')}`)
// Each bench's time and the whole run's, for docs/benchmarks.md (`npm run bench` must stay under 25 minutes).
const started = performance.now()
const took: string[] = []
for (const name of names.length ? names : Object.keys(BENCHES).filter((n) => !NAMED_ONLY.has(n))) {
  const t0 = performance.now()
  writeSection(name, await BENCHES[name]())
  took.push(`${name} ${((performance.now() - t0) / 60_000).toFixed(1)} min (load ${os.loadavg()[0].toFixed(1)})`)
  console.log(`bench ${took.at(-1)}`)
}
console.log(`npm run bench: ${((performance.now() - started) / 60_000).toFixed(1)} minutes in all: ${took.join(', ')}`)
process.exit(0)
