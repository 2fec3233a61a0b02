/**
 * Provider configurations (live mode only: test mode uses the mock provider). Every change goes
 * through services/provider-configs.ts, so the console validates exactly as the admin API does.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound, TillError } from '../../domain/errors.js'
import { isLiveProvider } from '../../providers/index.js'
import { recordActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { createProviderConfig, openConfig, providerConfigRow, providerConfigRows, updateProviderConfig, type ProviderConfigRow } from '../../services/provider-configs.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, type ModeParams } from '../context.js'
import type { ConsoleContext } from '../views/layout.js'
import { credentialsFromForm, identify, inFormWords, settingsFromForm, typedValues } from './fields.js'
import { EditPage, NewPage, ProvidersPage, type ConfigItem } from './view.js'

type IdParams = { Params: { mode: string; id: string } }

export const providerRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const item = (row: ProviderConfigRow): ConfigItem => {
    let ids: ConfigItem['identifies'] = []
    try {
      ids = identify(row.provider, openConfig(deps, row).credentials)
    } catch {}
    const settings = Object.fromEntries(Object.entries(row.settings).filter(([, v]) => typeof v === 'string')) as Record<string, string>
    return { id: row.id, provider: row.provider, label: row.label, enabled: row.enabled, isDefault: row.isDefault, settings, identifies: ids }
  }

  function liveOnly(c: ConsoleContext) {
    if (c.mode !== 'live') throw new NotFound()
  }

  async function configOf(req: FastifyRequest<IdParams>) {
    return providerConfigRow(deps, req.consoleSession!.merchant.id, req.params.id)
  }

  const log = (req: FastifyRequest, action: 'provider_config_created' | 'provider_config_updated', subject: string, detail: Record<string, unknown>) =>
    recordActivity(deps, { merchantId: req.consoleSession!.merchant.id, mode: 'live', ...actorOf(req), action, subject, detail })

  app.get<ModeParams & { Querystring: { saved?: string } }>('/:mode/providers', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    const rows = c.mode === 'live' ? await providerConfigRows(deps, req.consoleSession!.merchant.id) : []
    return sendHtml(reply, 200, ProvidersPage({ c, configs: rows.map(item), saved: req.query.saved !== undefined }))
  })

  app.get<ModeParams & { Querystring: { provider?: string } }>('/:mode/providers/new', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    liveOnly(c)
    const provider = req.query.provider
    if (!provider || !isLiveProvider(provider)) throw new NotFound()
    return sendHtml(reply, 200, NewPage({ c, provider, error: null, values: {} }))
  })

  app.post<ModeParams>('/:mode/providers', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    liveOnly(c)
    const body = req.body as Record<string, unknown>
    const provider = field(body, 'provider')
    if (!isLiveProvider(provider)) throw new NotFound()
    const label = field(body, 'label').trim()
    try {
      const created = await createProviderConfig(deps, req.consoleSession!.merchant.id, {
        provider,
        label,
        enabled: field(body, 'enabled') === 'on',
        isDefault: field(body, 'isDefault') === 'on' ? true : undefined,
        credentials: credentialsFromForm(provider, body),
        settings: settingsFromForm(provider, body),
      })
      await log(req, 'provider_config_created', created.id, { provider, label })
      return seeOther(reply, `/console/live/providers?saved=1`)
    } catch (e) {
      return rerender(reply, e, () => NewPage({ c, provider, error: inFormWords(provider, (e as Error).message, c.locale), values: typedValues(provider, body) }))
    }
  })

  app.get<IdParams>('/:mode/providers/:id', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    liveOnly(c)
    return sendHtml(reply, 200, EditPage({ c, config: item(await configOf(req)), error: null, saved: false }))
  })

  /** Label and settings. */
  app.post<IdParams>('/:mode/providers/:id', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    liveOnly(c)
    const row = await configOf(req)
    try {
      if (!isLiveProvider(row.provider)) throw new NotFound()
      const settings = settingsFromForm(row.provider, req.body as Record<string, unknown>)
      await updateProviderConfig(deps, row.merchantId, row.id, { label: field(req.body, 'label').trim(), settings })
      await log(req, 'provider_config_updated', row.id, { label: field(req.body, 'label').trim(), settings: true })
      return seeOther(reply, `/console/live/providers?saved=1`)
    } catch (e) {
      return rerender(reply, e, () => EditPage({ c, config: item(row), error: inFormWords(row.provider, (e as Error).message, c.locale), saved: false }))
    }
  })

  app.post<IdParams>('/:mode/providers/:id/credentials', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    liveOnly(c)
    const row = await configOf(req)
    try {
      if (!isLiveProvider(row.provider)) throw new NotFound()
      await updateProviderConfig(deps, row.merchantId, row.id, { credentials: credentialsFromForm(row.provider, req.body as Record<string, unknown>) })
      await log(req, 'provider_config_updated', row.id, { label: row.label, credentials: 'replaced' })
      return seeOther(reply, `/console/live/providers?saved=1`)
    } catch (e) {
      return rerender(reply, e, () => EditPage({ c, config: item(row), error: inFormWords(row.provider, (e as Error).message, c.locale), saved: false }))
    }
  })

  /** Enable, disable, mark default: one small form each in the list. */
  app.post<IdParams>('/:mode/providers/:id/state', async (req, reply) => {
    const c = consoleContext(req, reply, '/providers')
    liveOnly(c)
    const row = await configOf(req)
    const change = field(req.body, 'change')
    const patch = change === 'enable' ? { enabled: true } : change === 'disable' ? { enabled: false } : change === 'default' ? { isDefault: true } : null
    if (!patch) throw new TillError(400, 'unknown change')
    await updateProviderConfig(deps, row.merchantId, row.id, patch)
    await log(req, 'provider_config_updated', row.id, { label: row.label, ...patch })
    return seeOther(reply, `/console/live/providers?saved=1`)
  })
}

/** A refused save shows the form again with the service's message; anything else is an error page. */
function rerender(reply: FastifyReply, e: unknown, page: () => { toString(): string | Promise<string> }) {
  if (e instanceof TillError && e.status === 400) return sendHtml(reply, 400, page())
  throw e
}
