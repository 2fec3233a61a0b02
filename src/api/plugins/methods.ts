/**
 * A known path asked with a method it does not take is 405 with `Allow`, not the 404 of an unknown
 * path. Fastify routes by (method, path), so the paths are collected as routes are added.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { MethodNotAllowed, NotFound } from '../../domain/errors.js'

/** The JSON APIs; the hosted pages keep their own not-found page. */
const API = /^\/(api|admin)\//

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const toRegExp = (url: string) =>
  new RegExp(`^${url.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : escape(seg))).join('/')}/?$`)

export type NotFoundHandler = (req: FastifyRequest) => never

/** Sets the app's not-found handler and returns it, for scopes that answer it behind their own hooks (admin/route.ts). */
export function registerMethodCheck(app: FastifyInstance): NotFoundHandler {
  const paths = new Map<string, { re: RegExp; methods: Set<string> }>()
  app.addHook('onRoute', (route) => {
    if (!API.test(route.url)) return
    const entry = paths.get(route.url) ?? { re: toRegExp(route.url), methods: new Set<string>() }
    for (const m of [route.method].flat()) entry.methods.add(m)
    paths.set(route.url, entry)
  })
  const notFound: NotFoundHandler = (req) => {
    const path = req.url.split('?')[0]
    const allow = new Set<string>()
    if (API.test(path)) for (const { re, methods } of paths.values()) if (re.test(path)) for (const m of methods) allow.add(m)
    if (allow.size > 0 && !allow.has(req.method)) throw new MethodNotAllowed([...allow].sort())
    throw new NotFound()
  }
  app.setNotFoundHandler(notFound)
  return notFound
}
