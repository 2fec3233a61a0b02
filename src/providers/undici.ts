/**
 * undici, loaded on first use rather than on import: the command line loads every provider module
 * for its help and validation and never calls a provider, and loading undici took longer than the
 * rest of `till --help` (docs/benchmarks.md, "The command line").
 */
import { createRequire } from 'node:module'

type Undici = typeof import('undici')

let loaded: Undici | undefined

export const undici = (): Undici => (loaded ??= createRequire(import.meta.url)('undici') as Undici)
