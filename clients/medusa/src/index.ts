/**
 * @till-payments/medusa: register it in medusa-config.ts as a provider of Medusa's payment module
 * (`resolve: "@till-payments/medusa"`, `id: "till"`); README.md shows the whole setup.
 */
import { ModuleProvider, Modules } from '@medusajs/framework/utils'
import { TillPaymentProvider } from './service.js'

export default ModuleProvider(Modules.PAYMENT, { services: [TillPaymentProvider] })
export { TillPaymentProvider, SESSION_METADATA_KEY, type TillPaymentData } from './service.js'
export type { TillOptions } from './options.js'
