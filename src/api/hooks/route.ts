/**
 * Provider notifications in: /hooks/mock and /hooks/{provider}/{configId}. Raw bytes reach the
 * adapter, which verifies the signature before anything is parsed; facts apply in one transaction.
 */
import type { FastifyPluginAsync } from 'fastify'
import { BodyTooDeep, NotFound } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { applyFacts } from '../../services/payments.js'
import { openConfig } from '../../services/provider-configs.js'
import { getProviderConfigById } from '../../store/repos/provider-configs.js'
import type { ProviderConfig } from '../../providers/types.js'
import { jsonTooDeep } from '../plugins/json-depth.js'

export const hookRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

  async function handle(provider: string, configId: string | null, cfg: ProviderConfig, body: Buffer | undefined, headers: Record<string, string | string[] | undefined>) {
    const adapter = deps.providers.get(provider)
    if (!adapter) throw new NotFound()
    // Adapters parse and walk the body after its signature checks out: bound it before, as every JSON body is.
    if (body && jsonTooDeep(body)) throw new BodyTooDeep()
    const result = await adapter.parseNotification(cfg, { body: body ?? Buffer.alloc(0), headers })
    // Refused signatures, events Till does not act on (a Creem dispute): visible to the operator.
    for (const f of result.facts) if (f.kind === 'ignored') deps.log.info({ provider, configId, reason: f.reason }, 'provider notification not applied')
    if (result.facts.length) await applyFacts(deps, provider, configId, result.facts)
    return result.ack
  }

  const send = (reply: import('fastify').FastifyReply, ack: { status: number; body?: unknown; headers?: Record<string, string> }) => {
    if (ack.headers) reply.headers(ack.headers)
    return ack.body === undefined ? reply.code(ack.status).send() : reply.code(ack.status).send(ack.body)
  }

  app.post('/hooks/mock', { schema: { hide: true } }, async (req, reply) => send(reply, await handle('mock', null, deps.mockConfig, req.body as Buffer, req.headers)))

  app.post<{ Params: { provider: string; configId: string } }>('/hooks/:provider/:configId', { schema: { hide: true } }, async (req, reply) => {
    const row = await getProviderConfigById(deps.db, req.params.configId)
    if (!row || row.provider !== req.params.provider) throw new NotFound()
    const cfg = openConfig(deps, row)
    return send(reply, await handle(row.provider, row.id, cfg, req.body as Buffer, req.headers))
  })
}
