/**
 * Provider notifications in over HTTP: /hooks/mock and /hooks/{provider}/{configId}. The raw bytes
 * go to services/notifications.ts (signature checked before anything is parsed); its answer is the
 * exact reply the provider expects.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { receiveMockNotification, receiveProviderNotification, type NotificationAck } from '../../services/notifications.js'

export const hookRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

  const send = (reply: FastifyReply, ack: NotificationAck) => {
    if (ack.headers) reply.headers(ack.headers)
    return ack.body === undefined ? reply.code(ack.status).send() : reply.code(ack.status).send(ack.body)
  }
  const raw = (req: { body: unknown; headers: Record<string, string | string[] | undefined> }) => ({ body: (req.body as Buffer | undefined) ?? Buffer.alloc(0), headers: req.headers })

  app.post('/hooks/mock', { schema: { hide: true } }, async (req, reply) => send(reply, await receiveMockNotification(deps, raw(req))))

  app.post<{ Params: { provider: string; configId: string } }>('/hooks/:provider/:configId', { schema: { hide: true } }, async (req, reply) =>
    send(reply, await receiveProviderNotification(deps, req.params.provider, req.params.configId, raw(req))))
}
