import type { Mode } from '../../domain/checkout-rules.js'

/**
 * Every merchant-facing read is scoped by (merchant, mode): an unscoped read is hard to write. A read
 * that takes no Scope (or merchant id) says so in its name, `…Unscoped`: it is for jobs, providers'
 * notifications and the hosted page, which reach a row by an id the merchant did not hand them.
 */
export interface Scope {
  merchantId: string
  mode: Mode
}
