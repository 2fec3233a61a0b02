/** The pages' stylesheet and script, served from /assets under a content hash (web/assets.ts). */
import { loadAsset, servedAssets } from '../web/assets.js'

const dir = new URL('./assets/', import.meta.url)
export const ASSETS = {
  css: loadAsset('till.css', 'text/css; charset=utf-8', dir, '/assets'),
  js: loadAsset('till.js', 'text/javascript; charset=utf-8', dir, '/assets'),
}

export const assetRoutes = servedAssets(Object.values(ASSETS), '/assets')
