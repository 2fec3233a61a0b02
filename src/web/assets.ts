/**
 * Stylesheets and scripts, read once and served under a content hash: a changed file gets a new
 * URL, so browsers may cache each one for a year.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyPluginAsync } from 'fastify'

export interface Asset {
  url: string
  body: Buffer
  type: string
}

/** `file` in the folder `dir`, to be served under `prefix` (where `servedAssets` is registered), with `extra` appended. */
export function loadAsset(file: string, type: string, dir: URL, prefix: string, extra: string[] = []): Asset {
  const body = Buffer.concat([readFileSync(new URL(file, dir)), ...extra.map((e) => Buffer.from(`\n${e}`))])
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  const dot = file.lastIndexOf('.')
  return { url: `${prefix}/${file.slice(0, dot)}.${hash}${file.slice(dot)}`, body, type }
}

/** Serves the given assets by name, under the prefix they were loaded for. */
export const servedAssets = (assets: Asset[], prefix: string): FastifyPluginAsync => async (app) => {
  const byUrl = new Map(assets.map((a) => [a.url, a]))
  app.get<{ Params: { name: string } }>('/:name', { schema: { hide: true } }, async (req, reply) => {
    const asset = byUrl.get(`${prefix}/${req.params.name}`)
    if (!asset) return reply.callNotFound()
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type(asset.type).send(asset.body)
  })
}
