/**
 * /docs: the API reference, rendered in the browser by Redoc from Till's own /api/v1/openapi.json.
 * Redoc's standalone bundle comes from npm and is served from here under a content hash, so the
 * page works offline and behind a firewall, and loads nothing from anywhere else. The guides
 * (docs/*.md) are served beside it, as HTML rendered on the server (guides.ts).
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { FastifyPluginAsync } from 'fastify'
import { sendHtml } from '../../web/html.js'
import { GuideIndex, GuidePage } from './guide-page.js'
import { GUIDES_PATH, renderGuide, type Guide } from './guides.js'

const hashed = (content: Buffer, name: string, ext: string) => `/docs/${name}.${createHash('sha256').update(content).digest('hex').slice(0, 12)}.${ext}`
const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'))
const BUNDLE_URL = hashed(bundle, 'redoc', 'js')
const guidesCss = readFileSync(new URL('./guides.css', import.meta.url))
const GUIDES_CSS_URL = hashed(guidesCss, 'guides', 'css')

/** The guides in reading order: a merchant's first, then the operator's, then the contributor's. */
const ORDER = ['integrate', 'errors', 'console', 'operate', 'providers', 'scaling', 'benchmarks', 'architecture']
const DOCS_DIR = new URL('../../../docs/', import.meta.url)

/** docs/*.md, each rendered once, at start. */
export function loadGuides(dir: URL = DOCS_DIR): Guide[] {
  const names = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)) : []
  names.sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b))
  const known = new Set(names)
  return names.map((name) => renderGuide(name, readFileSync(new URL(`${name}.md`, dir), 'utf8'), known))
}

/** The guides have no script and no inline style at all. */
const GUIDES_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

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

  const guides = loadGuides()
  const byName = new Map(guides.map((g) => [g.name, g]))
  app.get(GUIDES_CSS_URL.slice('/docs'.length), { schema: { hide: true } }, async (_req, reply) => {
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type('text/css; charset=utf-8').send(guidesCss)
  })
  const guidePath = GUIDES_PATH.slice('/docs'.length)
  app.get(guidePath, { schema: { hide: true } }, async (_req, reply) => {
    reply.header('Content-Security-Policy', GUIDES_CSP).header('Cache-Control', 'no-cache')
    return sendHtml(reply, 200, GuideIndex({ guides, css: GUIDES_CSS_URL }))
  })
  app.get<{ Params: { name: string } }>(`${guidePath}/:name`, { schema: { hide: true } }, async (req, reply) => {
    reply.header('Content-Security-Policy', GUIDES_CSP).header('Cache-Control', 'no-cache')
    const guide = byName.get(req.params.name)
    if (!guide) return reply.code(404).type('text/plain; charset=utf-8').send('No such guide.')
    return sendHtml(reply, 200, GuidePage({ guide, guides, css: GUIDES_CSS_URL }))
  })
}
