import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderGuide } from './guides.js'

const GUIDES = new Set(['integrate', 'operate'])

test('raw HTML in a guide is text, never markup; so is a javascript: link', () => {
  const g = renderGuide('x', '# T\n\n<script>alert(1)</script> and <img src=x onerror=alert(1)>\n\n[click](javascript:alert(1))\n', GUIDES)
  assert.doesNotMatch(g.html, /<script|<img/)
  assert.match(g.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
  assert.doesNotMatch(g.html, /href="javascript:/)
})

test('headings get GitHub\'s ids; links between guides go to their pages, their anchors kept', () => {
  const g = renderGuide('integrate', [
    '# Integrating with Till',
    '## Coming back: successUrl, the relay and `paid_confirmed`',
    '## Webhook delivery: what profiling found (target ≥ 50 % of the plain loop)',
    '## Refunds', '## Refunds',
    'See [rate limits](operate.md#rate-limits), [above](#refunds) and [the spec](https://example.com/x).',
  ].join('\n\n'), GUIDES)
  assert.equal(g.title, 'Integrating with Till')
  assert.deepEqual(g.ids, ['integrating-with-till', 'coming-back-successurl-the-relay-and-paid_confirmed',
    'webhook-delivery-what-profiling-found-target--50--of-the-plain-loop', 'refunds', 'refunds-1'])
  assert.match(g.html, /<h2 id="coming-back-successurl-the-relay-and-paid_confirmed">/)
  assert.match(g.html, /<a href="\/docs\/guides\/operate#rate-limits">rate limits<\/a>/)
  assert.match(g.html, /<a href="#refunds">above<\/a>/)
  assert.match(g.html, /<a href="https:\/\/example.com\/x">the spec<\/a>/)
})

test('a link to a repository file Till does not serve is named, not linked', () => {
  const g = renderGuide('integrate', 'The [Node client](../clients/js/README.md) and [a guide we lack](scaling.md).', GUIDES)
  assert.match(g.html, /The Node client \(<code>clients\/js\/README.md<\/code> in Till's repository\)/)
  assert.match(g.html, /a guide we lack \(<code>scaling.md<\/code> in Till's repository\)/)
  assert.doesNotMatch(g.html, /<a /)
})

test('a table column\'s alignment is a class, not an inline style (the CSP allows none)', () => {
  const g = renderGuide('x', '| a | b |\n|---|--:|\n| 1 | 2 |\n', GUIDES)
  assert.doesNotMatch(g.html, /style=/)
  assert.match(g.html, /<th class="align-right">b<\/th>/)
  assert.match(g.html, /<td class="align-right">2<\/td>/)
})
