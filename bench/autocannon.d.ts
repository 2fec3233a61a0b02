/** autocannon ships no types; the load generator uses the few calls declared here. */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'
  function autocannon(opts: Record<string, unknown>, done: (err: Error | null, result: { errors: number }) => void): EventEmitter
  export default autocannon
}
