/**
 * /docs, the API reference Till serves itself (issue #12 §7), from a real Till process: the page and
 * the renderer's bundle come from Till, name nothing elsewhere, and carry their own CSP. The same
 * process shows the log format for a pipe (JSON lines) and the Demo block apart from them (§8).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { freshDatabase, tillDatabaseEnv } from '../helpers/db.js'
import { dataDir, KEY_LINE, startTill, stopTill } from '../helpers/process.js'

test('a real Till serves /docs and the renderer from itself, and logs JSON lines to a pipe with the Demo key in a block apart', async (t) => {
  const db = await freshDatabase({ migrated: false })
  t.after(() => db.drop())
  const till = await startTill(dataDir(t), { ...tillDatabaseEnv(db), LOG_LEVEL: 'info' })
  t.after(() => stopTill(till))

  for (const path of ['/docs', '/docs/']) {
    const page = await fetch(till.base + path)
    assert.equal(page.status, 200, path)
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8')
    const csp = page.headers.get('content-security-policy') ?? ''
    assert.match(csp, /script-src 'self';/)
    assert.match(csp, /connect-src 'self';/)
    const html = await page.text()
    assert.match(html, /<redoc spec-url="\/api\/v1\/openapi\.json"/)
    // Nothing from another origin: no CDN, no web font, no analytics.
    assert.doesNotMatch(html.replace('/api/v1/openapi.json', ''), /https?:\/\/|\/\/[a-z]/i)
    assert.doesNotMatch(html, /<script>|<style>/, 'no inline script or style in our own page')
    const src = /<script src="(\/docs\/redoc\.[0-9a-f]{12}\.js)"><\/script>/.exec(html)
    assert.ok(src, html)

    const bundle = await fetch(till.base + src[1])
    assert.equal(bundle.status, 200)
    assert.equal(bundle.headers.get('content-type'), 'text/javascript; charset=utf-8')
    assert.equal(bundle.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    const js = await bundle.text()
    assert.ok(js.length > 500_000, `the whole renderer (${js.length} bytes)`)
    assert.match(js, /Redoc/)
  }
  assert.equal((await fetch(`${till.base}/docs/redoc.000000000000.js`)).status, 404)

  const spec = await fetch(`${till.base}/api/v1/openapi.json`)
  assert.equal(spec.status, 200)
  assert.equal((await spec.json()).openapi, '3.1.0')

  // stdout is a pipe here: every log line is JSON; the Demo key is a block of its own, not a log line.
  const out = till.stdout()
  const [before, block, after] = out.split(/^─{72}$/m)
  assert.ok(block !== undefined && after !== undefined, out)
  assert.equal([...block.matchAll(KEY_LINE)].length, 1, block)
  // Where the live key is: made but never shown, so made anew in the console or with the CLI (and the test key alike).
  assert.match(block, /The live key was made too, but is never shown/)
  assert.match(block, /till keys create --merchant mer_[0-9A-Za-z]{24} --mode live\n {2}Lost the test key\? The same, with --mode test\./)
  assert.match(block, /\/console\/live\/keys, Create key/)
  const lines = (before + after).split('\n').filter((l) => l.trim())
  assert.ok(lines.length > 0)
  for (const line of lines) assert.equal(typeof JSON.parse(line).level, 'number', line)
  assert.doesNotMatch(before + after, /sk_test_/)
})

test('Till serves the guides as HTML beside the reference: every link between them, and from the reference to them, lands on a heading', async (t) => {
  const db = await freshDatabase({ migrated: false })
  t.after(() => db.drop())
  const till = await startTill(dataDir(t), tillDatabaseEnv(db))
  t.after(() => stopTill(till))

  const index = await fetch(`${till.base}/docs/guides`)
  assert.equal(index.status, 200)
  const csp = index.headers.get('content-security-policy') ?? ''
  assert.match(csp, /default-src 'none'/)
  assert.doesNotMatch(csp, /unsafe-inline|script-src/, 'the guides run no script and no inline style')
  const list = await index.text()
  const names = [...list.matchAll(/<li><a href="\/docs\/guides\/([a-z-]+)">/g)].map((m) => m[1])
  assert.deepEqual(names.slice(0, 4), ['integrate', 'errors', 'console', 'operate'])
  assert.ok(names.length >= 8, names.join())

  const pages = new Map<string, string>()
  for (const name of names) {
    const page = await fetch(`${till.base}/docs/guides/${name}`)
    assert.equal(page.status, 200, name)
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8')
    const html = await page.text()
    assert.doesNotMatch(html, /<script|<style| style=/, `${name}: no script, no inline style`)
    assert.match(html, /<a href="\/docs">API reference<\/a>/)
    pages.set(name, html)
  }
  const css = /<link rel="stylesheet" href="(\/docs\/guides\.[0-9a-f]{12}\.css)"\/?>/.exec(pages.get('integrate')!)
  assert.ok(css)
  const sheet = await fetch(till.base + css[1])
  assert.equal(sheet.headers.get('content-type'), 'text/css; charset=utf-8')
  assert.equal(sheet.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  assert.equal((await fetch(`${till.base}/docs/guides/nothing`)).status, 404)
  // Raw HTML in the Markdown is shown, not run (architecture.md writes <time datetime="…"> in code).
  assert.match(pages.get('architecture')!, /&lt;time datetime=/)

  const ids = (html: string) => new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]))
  const broken: string[] = []
  const check = (from: string, href: string, current?: string) => {
    const [target, hash] = href.startsWith('#') ? [current, href.slice(1)] : (/^\/docs\/guides\/([a-z-]+)(?:#(.*))?$/.exec(href) ?? []).slice(1)
    const html = target ? pages.get(target) : undefined
    if (!html) broken.push(`${from}: ${href} (no such guide)`)
    else if (hash && !ids(html).has(hash)) broken.push(`${from}: ${href} (no such heading)`)
  }
  for (const [name, html] of pages) {
    for (const [, href] of html.matchAll(/<a href="(\/docs\/guides\/[^"]+|#[^"]+)"/g)) check(name, href, name)
  }
  const spec = await (await fetch(`${till.base}/api/v1/openapi.json`)).json()
  const fromReference = [...JSON.stringify(spec).matchAll(/\]\((\/docs\/guides[^)]*)\)/g)].map((m) => m[1])
  assert.ok(fromReference.length >= 10, 'the reference links the guides')
  for (const href of fromReference) if (href !== '/docs/guides') check('openapi.json', href)
  assert.deepEqual(broken, [])
})
