/** Starting and stopping a fake: an HTTP server on loopback only, and its jobs on a timer if asked. */
import Fastify, { type FastifyInstance } from 'fastify'
import type { JobQueue } from './jobs.js'

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])

/** The host to listen on; checked before the fake builds anything, since a fake must never face a network. */
export function loopbackHost(host = '127.0.0.1'): string {
  if (!LOOPBACK.has(host)) throw new Error(`the fake listens on loopback only, not ${host}`)
  return host
}

export interface ServeOptions {
  host: string
  port?: number
  /** Run due jobs on a timer every this many ms; tests leave it off and tick. */
  autoRunMs?: number
}

/** Registers the fake's routes (`baseUrl` answers once listening), listens, and returns the URL and the stop. */
export async function serveFake(opts: ServeOptions, jobs: JobQueue, register: (app: FastifyInstance, baseUrl: () => string) => Promise<void>) {
  let url = ''
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true })
  await register(app, () => url)
  url = await app.listen({ host: opts.host, port: opts.port ?? 0 })
  const stop = opts.autoRunMs ? jobs.autoRun(opts.autoRunMs) : undefined
  return {
    url,
    async close() {
      stop?.()
      await app.close()
    },
  }
}

/** HTML forms posted to a fake's pages: the body as an object of its fields (the last of a repeated one). */
export function acceptForms(app: FastifyInstance) {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}
