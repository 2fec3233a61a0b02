/**
 * The pages' stylesheet and script, served from /assets under a content hash (web/assets.ts). Each
 * provider's page pieces (its mark's colour, the script for its app's payment bridge) are appended
 * from its module, so the core files name no provider.
 */
import { readFileSync } from 'node:fs'
import { PROVIDERS } from '../providers/index.js'
import { loadAsset, servedAssets } from '../web/assets.js'

const dir = new URL('./assets/', import.meta.url)
const marks = PROVIDERS.map((p) => `.mark-${p.id} { background: ${p.page.markColor}; }`)
const scripts = PROVIDERS.flatMap((p) => (p.page.script ? [readFileSync(p.page.script, 'utf8')] : []))

export const ASSETS = {
  css: loadAsset('till.css', 'text/css; charset=utf-8', dir, '/assets', marks),
  js: loadAsset('till.js', 'text/javascript; charset=utf-8', dir, '/assets', scripts),
}

export const assetRoutes = servedAssets(Object.values(ASSETS), '/assets')
