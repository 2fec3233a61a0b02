/** /logos/<merchant>/<hash>: a merchant's logo (console Settings) for the hosted pages, cached by its content hash. */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { loadLogo } from '../../services/merchant-settings.js'

export const logoRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  await app.register(brandColourRoutes)
  app.get<{ Params: { merchant: string; hash: string } }>('/:merchant/:hash', { schema: { hide: true } }, async (req, reply) => {
    const logo = await loadLogo(deps, req.params.merchant, req.params.hash)
    if (!logo) return reply.callNotFound()
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type(logo.type).send(logo.body)
  })
}

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string) {
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)

/**
 * A merchant's brand colour as a stylesheet (the pages' CSP allows no inline style): the pay button
 * and the card's top edge take it, with white or dark text on the button, whichever reads better;
 * links take it only when it keeps AA contrast on white.
 */
export function brandCss(hex: string): string {
  const l = luminance(hex)
  const ink = contrast(l, 1) >= contrast(l, luminance('1a1d21')) ? '#ffffff' : '#1a1d21'
  const links = contrast(l, 1) >= 4.5 ? `:root{--accent:#${hex}}` : ''
  return `${links}.button.primary,.button.primary:hover{background:#${hex};color:${ink}}.card{border-top:4px solid #${hex}}`
}

export const brandColourRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { hex: string } }>('/colour/:hex', { schema: { hide: true } }, async (req, reply) => {
    if (!/^[0-9a-f]{6}$/.test(req.params.hex)) return reply.callNotFound()
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type('text/css; charset=utf-8').send(brandCss(req.params.hex))
  })
}

export const brandStylesheet = (colour: string | null) => (colour ? `/logos/colour/${colour.slice(1).toLowerCase()}` : null)
