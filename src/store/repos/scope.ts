import type { Mode } from '../../domain/checkout-rules.js'

/**
 * Every merchant-facing read is scoped by (merchant, mode): an unscoped read is hard to write. A
 * read of a merchant's row takes its Scope, required, second after the executor; a read that takes
 * no Scope (or merchant id) says so in its name, `…Unscoped`: it is for jobs, providers'
 * notifications, the operator's admin API and the hosted page, which reach a row by an id the
 * merchant did not hand them. No read takes its scope as optional (test/docs/code-layout.test.ts).
 */
export interface Scope {
  merchantId: string
  mode: Mode
}
