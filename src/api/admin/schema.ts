import { Type, type Static } from 'typebox'
import { ITEM_CATEGORIES } from '../../domain/reconciliation.js'
import { Mode, errorFor } from '../../domain/resources.js'
import { EventFilter, Url } from '../webhook-endpoints/schema.js'

const Creds = Type.Record(Type.String(), Type.Unknown())
const MerchantParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const MerchantBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  password: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false })

export const ApiKeyBody = Type.Object({ mode: Mode }, { additionalProperties: false })

/** Sets or resets a merchant's console password (and its login email, when it has none yet). */
export const PasswordBody = Type.Object({
  password: Type.String({ maxLength: 200 }),
  email: Type.Optional(Type.String({ maxLength: 254 })),
}, { additionalProperties: false })

export const ProviderConfigBody = Type.Object({
  provider: Type.String(),
  label: Type.String(),
  enabled: Type.Optional(Type.Boolean()),
  isDefault: Type.Optional(Type.Boolean()),
  credentials: Creds,
  settings: Type.Optional(Creds),
}, { additionalProperties: false })

export const ProviderConfigPatch = Type.Object({
  label: Type.Optional(Type.String()),
  enabled: Type.Optional(Type.Boolean()),
  isDefault: Type.Optional(Type.Boolean()),
  credentials: Type.Optional(Creds),
  settings: Type.Optional(Creds),
}, { additionalProperties: false })

export const AdminEndpointBody = Type.Object({ mode: Mode, url: Url, events: Type.Optional(EventFilter) }, { additionalProperties: false })

export type MerchantBodyT = Static<typeof MerchantBody>
export type ApiKeyBodyT = Static<typeof ApiKeyBody>
export type PasswordBodyT = Static<typeof PasswordBody>
export type ProviderConfigBodyT = Static<typeof ProviderConfigBody>
export type ProviderConfigPatchT = Static<typeof ProviderConfigPatch>
export type AdminEndpointBodyT = Static<typeof AdminEndpointBody>

/** A page of an admin list, of one merchant or of all. */
const AdminPage = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  starting_after: Type.Optional(Type.String({ maxLength: 64 })),
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
}

export const DiscrepancyQuery = Type.Object(AdminPage, { additionalProperties: false })
export type DiscrepancyQueryT = Static<typeof DiscrepancyQuery>

export const ReconciliationRunBody = Type.Object({
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the provider\'s day, YYYY-MM-DD in its time zone' }),
  providerConfigId: Type.Optional(Type.String({ maxLength: 64, description: 'one configuration; default: every enabled one whose provider has statements' })),
}, { additionalProperties: false })
export type ReconciliationRunBodyT = Static<typeof ReconciliationRunBody>

export const ReportQuery = Type.Object({
  ...AdminPage,
  provider_config_id: Type.Optional(Type.String({ maxLength: 64 })),
  date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
}, { additionalProperties: false })
export type ReportQueryT = Static<typeof ReportQuery>

export const MismatchQuery = Type.Object({
  ...AdminPage,
  provider_config_id: Type.Optional(Type.String({ maxLength: 64 })),
  report_id: Type.Optional(Type.String({ maxLength: 64 })),
  category: Type.Optional(Type.Enum(ITEM_CATEGORIES)),
  open: Type.Optional(Type.Boolean({ description: 'only mismatches not acknowledged yet' })),
}, { additionalProperties: false })
export type MismatchQueryT = Static<typeof MismatchQuery>

/** A merchant's activity log, newest first: keyset cursors on the entry's id, and filters that combine. */
export const ActivityQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  starting_after: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$', description: 'the id of the last entry of the page before: the next, older page' })),
  ending_before: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$', description: 'the id of the first entry of the page after: the previous, newer page' })),
  member: Type.Optional(Type.String({ maxLength: 64, description: 'a member id (mem_…): that member\'s entries' })),
  action: Type.Optional(Type.String({ maxLength: 64 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'entries at or after this time' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'entries before this time' })),
}, { additionalProperties: false })
export type ActivityQueryT = Static<typeof ActivityQuery>

/** Hidden from the document: every code of each status, for serialising the answer. */
const statusErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, errorFor(s)]))
const hide = { hide: true, response: statusErrors(400, 401, 404) }
export const S = {
  createMerchant: { hide: true, body: MerchantBody, response: statusErrors(400, 401, 409) },
  merchant: { ...hide, params: MerchantParams },
  createKey: { ...hide, params: MerchantParams, body: ApiKeyBody },
  setPassword: { hide: true, params: MerchantParams, body: PasswordBody, response: statusErrors(400, 401, 404, 409) },
  key: { ...hide, params: Type.Object({ id: Type.String(), keyId: Type.String() }) },
  createConfig: { ...hide, params: MerchantParams, body: ProviderConfigBody },
  createEndpoint: { ...hide, params: MerchantParams, body: AdminEndpointBody },
  discrepancies: { ...hide, querystring: DiscrepancyQuery },
  patchConfig: { ...hide, params: Type.Object({ id: Type.String(), configId: Type.String() }), body: ProviderConfigPatch },
  reconciliationRun: { hide: true, body: ReconciliationRunBody, response: statusErrors(400, 401, 409) },
  reports: { ...hide, querystring: ReportQuery },
  report: { ...hide, params: Type.Object({ id: Type.String({ maxLength: 64 }) }) },
  mismatches: { ...hide, querystring: MismatchQuery },
  activity: { ...hide, params: MerchantParams, querystring: ActivityQuery },
}
