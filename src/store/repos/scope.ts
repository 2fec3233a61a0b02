import type { Mode } from '../../domain/checkout-rules.js'

/** Every merchant-facing read is scoped by (merchant, mode): an unscoped read is hard to write. */
export interface Scope {
  merchantId: string
  mode: Mode
}
