/**
 * `npm run bench`: every benchmark, or the ones named (`npm run bench -- api scale`). Each prints
 * its results beside a ceiling measured in the same run, and rewrites its own section of
 * docs/benchmarks.md (bench/report.ts).
 */
import { benchApi } from './api.js'
import { benchCli } from './cli.js'
import { benchConsole } from './console.js'
import { benchConsolePage } from './console-page.js'
import { benchFailover } from './failover.js'
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
import { benchWebhooks } from './webhooks.js'

const BENCHES: Record<string, () => Promise<string>> = {
  api: benchApi,
  cli: benchCli,
  console: benchConsole,
  'console-page': benchConsolePage,
  failover: benchFailover,
  latency: benchLatency,
  memory: benchMemory,
  profile: benchProfile,
  providers: benchProviders,
  reconciliation: benchReconciliation,
  relay: benchRelay,
  scale: benchScale,
  statements: benchStatements,
  webhooks: benchWebhooks,
}

const names = benchNames()
for (const name of names) if (!BENCHES[name]) throw new Error(`unknown bench ${name}; known: ${Object.keys(BENCHES).join(', ')}`)
for (const name of names.length ? names : Object.keys(BENCHES)) writeSection(name, await BENCHES[name]())
process.exit(0)
