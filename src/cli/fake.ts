/**
 * `till fake <provider>`: runs the provider's local fake for offline testing (each provider
 * declares its own in its module, src/providers/<id>/fake/cli.ts).
 */
import { isLiveProvider, moduleOf, PROVIDERS } from '../providers/index.js'

export async function runFake(argv: string[]) {
  const [id, ...rest] = argv
  if (!id || !isLiveProvider(id)) {
    const usages = (await Promise.all(PROVIDERS.map((p) => p.fake()))).map((f) => f.usage).join('\n\n')
    const ids = PROVIDERS.map((p) => p.id).join(' or ')
    console.error(id ? `unknown fake: ${id} (${ids})\n\n${usages}` : usages)
    return 2
  }
  return (await moduleOf(id).fake()).run(rest)
}
