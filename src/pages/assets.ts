/**
 * The pages' stylesheet and script, read once and served under a content hash: a changed file gets a
 * new URL, so browsers may cache each one for a year.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyPluginAsync } from 'fastify'

interface Asset {
  url: string
  body: Buffer
  type: string
}

function load(file: string, type: string): Asset {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url))
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  const dot = file.lastIndexOf('.')
  return { url: `/assets/${file.slice(0, dot)}.${hash}${file.slice(dot)}`, body, type }
}

export const ASSETS = {
  css: load('till.css', 'text/css; charset=utf-8'),
  js: load('till.js', 'text/javascript; charset=utf-8'),
}

const byUrl = new Map(Object.values(ASSETS).map((a) => [a.url, a]))

export const assetRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { name: string } }>('/:name', { schema: { hide: true } }, async (req, reply) => {
    const asset = byUrl.get(`/assets/${req.params.name}`)
    if (!asset) return reply.callNotFound()
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type(asset.type).send(asset.body)
  })
}
