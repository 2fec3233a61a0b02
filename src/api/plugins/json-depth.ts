/** Every JSON body of the API goes through the depth bound (domain/json-depth.ts) before it is parsed. */
import type { FastifyInstance } from 'fastify'
import { BodyTooDeep } from '../../domain/errors.js'
import { jsonTooDeep } from '../../domain/json-depth.js'

/** Fastify's own JSON parser (prototype-poisoning checks kept), behind the depth bound. */
export function registerJsonParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (jsonTooDeep(body as string)) return done(new BodyTooDeep(), undefined)
    parse(req, body as string, done)
  })
}
