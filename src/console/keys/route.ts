/** API keys of the selected mode: list, create (shown once), revoke (after a confirmation page). */
import type { FastifyPluginAsync } from 'fastify'
import { NotFound } from '../../domain/errors.js'
import { recordActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/merchants.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, type ModeParams } from '../context.js'
import { KeysPage, RevokePage } from './view.js'

type KeyParams = { Params: { mode: string; id: string } }

export const keyRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const keysOf = async (merchantId: string, mode: string) => (await listApiKeys(deps, merchantId)).filter((k) => k.mode === mode).reverse()

  app.get<ModeParams & { Querystring: { revoked?: string } }>('/:mode/keys', async (req, reply) => {
    const c = consoleContext(req, reply, '/keys')
    const keys = await keysOf(req.consoleSession!.merchant.id, c.mode)
    const revoked = keys.find((k) => k.id === req.query.revoked && k.revokedAt) ?? null
    return sendHtml(reply, 200, KeysPage({ c, keys, created: null, revoked: revoked?.last4 ?? null }))
  })

  app.post<ModeParams>('/:mode/keys', async (req, reply) => {
    const c = consoleContext(req, reply, '/keys')
    const merchantId = req.consoleSession!.merchant.id
    const created = await createApiKey(deps, merchantId, c.mode)
    await recordActivity(deps, { merchantId, mode: c.mode, ...actorOf(req), action: 'key_created', subject: created.id, detail: { last4: created.key.slice(-4) } })
    // Answered here, not redirected: the key exists only in this response.
    return sendHtml(reply, 201, KeysPage({ c, keys: await keysOf(merchantId, c.mode), created: created.key, revoked: null }))
  })

  async function keyInMode(merchantId: string, mode: string, id: string) {
    const key = (await keysOf(merchantId, mode)).find((k) => k.id === id)
    if (!key) throw new NotFound()
    return key
  }

  app.get<KeyParams>('/:mode/keys/:id/revoke', async (req, reply) => {
    const c = consoleContext(req, reply, '/keys')
    const key = await keyInMode(req.consoleSession!.merchant.id, c.mode, req.params.id)
    if (key.revokedAt) return seeOther(reply, `/console/${c.mode}/keys`)
    return sendHtml(reply, 200, RevokePage({ c, key }))
  })

  app.post<KeyParams>('/:mode/keys/:id/revoke', async (req, reply) => {
    const c = consoleContext(req, reply, '/keys')
    const merchantId = req.consoleSession!.merchant.id
    const key = await keyInMode(merchantId, c.mode, req.params.id)
    await revokeApiKey(deps, merchantId, key.id)
    if (!key.revokedAt) await recordActivity(deps, { merchantId, mode: c.mode, ...actorOf(req), action: 'key_revoked', subject: key.id, detail: { last4: key.last4 } })
    return seeOther(reply, `/console/${c.mode}/keys?revoked=${key.id}`)
  })
}
