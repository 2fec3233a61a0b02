/** Admin API (docs/operate.md#admin-api), behind ADMIN_TOKEN; absent when it is unset. */
import type { FastifyPluginAsync } from 'fastify'
import { NotFound } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { setPassword } from '../../services/console-auth.js'
import * as merchants from '../../services/merchants.js'
import * as configs from '../../services/provider-configs.js'
import { createEndpointForMerchant } from '../../services/webhook-endpoints.js'
import { getMerchant } from '../../store/repos/merchants.js'
import { registerAdminAuth } from '../plugins/auth.js'
import type { NotFoundHandler } from '../plugins/methods.js'
import { listDiscrepancies } from '../../services/discrepancies.js'
import { runByHand } from '../../services/reconciliation.js'
import { getReport, listItems, listReports } from '../../services/reconciliation-reports.js'
import { merchantActivity } from '../../services/activity-export.js'
import { adminTrail, requireAdminActions } from './activity.js'
import {
  S, type ActivityQueryT, type AdminEndpointBodyT, type ApiKeyBodyT, type DiscrepancyQueryT, type MerchantBodyT, type MismatchQueryT, type PasswordBodyT,
  type ProviderConfigBodyT, type ProviderConfigPatchT, type ReconciliationRunBodyT, type ReportQueryT,
} from './schema.js'

type M = { Params: { id: string } }

export const adminRoutes = (deps: Deps, token: string, notFound: NotFoundHandler): FastifyPluginAsync => async (app) => {
  registerAdminAuth(app, token)
  requireAdminActions(app)
  // Each change goes in the log of the merchant it touched, once made (services/activity.ts).
  const trail = adminTrail(deps, token)
  // Under /admin/v1 an unknown path or a wrong method is answered after the token check too: a 405
  // and its Allow would otherwise tell anyone which admin routes exist.
  app.setNotFoundHandler(notFound)

  app.post<{ Body: MerchantBodyT }>('/merchants', { schema: S.createMerchant }, async (req, reply) => {
    const m = await merchants.createMerchant(deps, req.body)
    await trail(req, m.id, { subject: m.id, detail: { name: m.name, email: m.email } })
    return reply.code(201).send(m)
  })

  app.get<M>('/merchants/:id', { schema: S.merchant }, async (req) => {
    const m = await getMerchant(deps.db, req.params.id)
    if (!m) throw new NotFound()
    return { id: m.id, name: m.name, email: m.email, createdAt: m.createdAt.toISOString() }
  })

  // Every console session of the merchant ends: a reset password is a reset sign-in.
  app.post<M & { Body: PasswordBodyT }>('/merchants/:id/password', { schema: S.setPassword }, async (req) => {
    const { set, secondFactorReset } = await setPassword(deps, req.params.id, req.body)
    await trail(req, set.id, { subject: set.email })
    // The way back for an owner who lost both phone and recovery codes took their second factor away.
    if (secondFactorReset) await trail(req, set.id, { action: 'second_factor_reset', subject: set.email })
    return set
  })

  app.post<M & { Body: ApiKeyBodyT }>('/merchants/:id/api_keys', { schema: S.createKey }, async (req, reply) => {
    const key = await merchants.createApiKey(deps, req.params.id, req.body.mode)
    await trail(req, req.params.id, { mode: key.mode, subject: key.id, detail: { last4: key.key.slice(-4) } })
    return reply.code(201).send(key)
  })

  // The merchant's activity log, every mode: the console's entries and the admin API's own.
  app.get<M & { Querystring: ActivityQueryT }>('/merchants/:id/activity', { schema: S.activity }, (req) =>
    merchantActivity(deps, req.params.id, {
      limit: req.query.limit, startingAfter: req.query.starting_after, endingBefore: req.query.ending_before,
      member: req.query.member, action: req.query.action, since: req.query.since, until: req.query.until,
    }))

  app.get<M>('/merchants/:id/api_keys', { schema: S.merchant }, async (req) => ({ data: await merchants.listApiKeys(deps, req.params.id) }))

  app.delete<{ Params: { id: string; keyId: string } }>('/merchants/:id/api_keys/:keyId', { schema: S.key }, async (req) => {
    const key = await merchants.revokeApiKey(deps, req.params.id, req.params.keyId)
    await trail(req, req.params.id, { mode: key.mode, subject: key.id })
    return key
  })

  app.post<M & { Body: ProviderConfigBodyT }>('/merchants/:id/provider_configs', { schema: S.createConfig }, async (req, reply) => {
    const config = await configs.createProviderConfig(deps, req.params.id, req.body)
    await trail(req, req.params.id, { mode: 'live', subject: config.id, detail: { provider: config.provider, label: config.label } })
    return reply.code(201).send(config)
  })

  app.get<M>('/merchants/:id/provider_configs', { schema: S.merchant }, async (req) => ({ data: await configs.listProviderConfigs(deps, req.params.id) }))

  app.patch<{ Params: { id: string; configId: string }; Body: ProviderConfigPatchT }>('/merchants/:id/provider_configs/:configId', { schema: S.patchConfig }, async (req) => {
    const config = await configs.updateProviderConfig(deps, req.params.id, req.params.configId, req.body)
    const { credentials, settings, ...rest } = req.body
    await trail(req, req.params.id, { mode: 'live', subject: config.id, detail: { ...rest, label: config.label, ...(credentials ? { credentials: 'replaced' } : {}), ...(settings ? { settings: true } : {}) } })
    return config
  })

  app.post<M & { Body: AdminEndpointBodyT }>('/merchants/:id/webhook_endpoints', { schema: S.createEndpoint }, async (req, reply) => {
    const endpoint = await createEndpointForMerchant(deps, req.params.id, req.body)
    await trail(req, req.params.id, { mode: endpoint.mode, subject: endpoint.id, detail: { url: endpoint.url } })
    return reply.code(201).send(endpoint)
  })

  // Provider reports that changed no money state because they did not match what Till asked for.
  app.get<{ Querystring: DiscrepancyQueryT }>('/discrepancies', { schema: S.discrepancies }, (req) =>
    listDiscrepancies(deps, { limit: req.query.limit ?? 20, startingAfter: req.query.starting_after, merchantId: req.query.merchant_id }))

  // Reconciliation against the providers' statements (docs/reconciliation.md): run a day now, read reports and mismatches.
  app.post<{ Body: ReconciliationRunBodyT }>('/reconciliation/runs', { schema: S.reconciliationRun }, async (req) => {
    const runs = await runByHand(deps, req.body)
    const reports = await Promise.all(runs.map((s) => getReport(deps, null, s.id)))
    for (const r of reports) await trail(req, r.merchantId, { mode: r.mode, subject: r.id, detail: { date: r.date, provider: r.provider, providerConfigId: r.providerConfigId } })
    return { data: reports }
  })

  app.get<{ Querystring: ReportQueryT }>('/reconciliation/reports', { schema: S.reports }, (req) =>
    listReports(deps, null, { merchantId: req.query.merchant_id, providerConfigId: req.query.provider_config_id, day: req.query.date }, { limit: req.query.limit ?? 20, startingAfter: req.query.starting_after }))

  app.get<M>('/reconciliation/reports/:id', { schema: S.report }, (req) => getReport(deps, null, req.params.id))

  app.get<{ Querystring: MismatchQueryT }>('/reconciliation/mismatches', { schema: S.mismatches }, (req) =>
    listItems(deps, null, { reportId: req.query.report_id, merchantId: req.query.merchant_id, providerConfigId: req.query.provider_config_id, category: req.query.category, open: req.query.open },
      { limit: req.query.limit ?? 20, startingAfter: req.query.starting_after }))
}
