import type { Forward } from './postgres-tcp'
import type { TillServer } from './till'

export default async function globalTeardown() {
  const servers = (globalThis as { __tillTestServers?: { forward: Forward; till: TillServer } }).__tillTestServers
  await servers?.till.stop()
  await servers?.forward.close()
}
