/**
 * /docs: the API reference, rendered in the browser by Redoc from Till's own /api/v1/openapi.json.
 * Redoc's standalone bundle comes from npm and is served from here under a content hash, so the
 * page works offline and behind a firewall, and loads nothing from anywhere else.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { FastifyPluginAsync } from 'fastify'

const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'))
const BUNDLE_URL = `/docs/redoc.${createHash('sha256').update(bundle).digest('hex').slice(0, 12)}.js`

/**
 * Redoc styles its components at run time (styled-components inserts <style> elements), and its
 * search runs in a worker made from a blob: those two are allowed; scripts come only from here.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

// Options are attributes of the <redoc> element: no inline script is needed to start it.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Till API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>The API reference needs JavaScript. The OpenAPI document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
<redoc spec-url="/api/v1/openapi.json" hide-download-button="false" required-props-first="true" path-in-middle-panel="true" expand-responses="200,201"></redoc>
<script src="${BUNDLE_URL}"></script>
</body>
</html>
`

export const apiReferenceRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', async (_req, reply) => {
    reply.header('Content-Security-Policy', DOCS_CSP)
    reply.header('X-Content-Type-Options', 'nosniff')
    reply.header('Referrer-Policy', 'no-referrer')
  })
  app.get('/', { schema: { hide: true } }, async (_req, reply) => {
    reply.header('Cache-Control', 'no-cache')
    return reply.type('text/html; charset=utf-8').send(PAGE)
  })
  app.get(BUNDLE_URL.slice('/docs'.length), { schema: { hide: true } }, async (_req, reply) => {
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type('text/javascript; charset=utf-8').send(bundle)
  })
}
