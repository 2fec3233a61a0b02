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
  assert.match(block, /till keys create --merchant mer_[0-9A-Za-z]{24} --mode test/)
  const lines = (before + after).split('\n').filter((l) => l.trim())
  assert.ok(lines.length > 0)
  for (const line of lines) assert.equal(typeof JSON.parse(line).level, 'number', line)
  assert.doesNotMatch(before + after, /sk_test_/)
})
