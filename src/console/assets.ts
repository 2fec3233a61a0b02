/** The console's stylesheet and its one small script, served from /console/assets under a content hash. */
import { loadAsset } from '../web/assets.js'

const dir = new URL('./assets/', import.meta.url)
export const CONSOLE_ASSETS = {
  css: loadAsset('console.css', 'text/css; charset=utf-8', dir, '/console/assets'),
  js: loadAsset('console.js', 'text/javascript; charset=utf-8', dir, '/console/assets'),
}
