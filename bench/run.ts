/**
 * `npm run bench`: every benchmark, or the ones named (`npm run bench -- webhooks`). Each prints its
 * own results beside a ceiling measured in the same run.
 */
import { benchWebhooks } from './webhooks.js'

const BENCHES: Record<string, () => Promise<void>> = {
  webhooks: benchWebhooks,
}

const names = process.argv.slice(2)
for (const name of names) if (!BENCHES[name]) throw new Error(`unknown bench ${name}; known: ${Object.keys(BENCHES).join(', ')}`)
for (const name of names.length ? names : Object.keys(BENCHES)) await BENCHES[name]()
process.exit(0)
