import assert from 'node:assert/strict'
import { test } from 'node:test'
import { wayBack, type WayBackSources } from './way-back.js'

const S = 'sess_AAAAAAAAAAAAAAAAAAAAAAAA'
const none: WayBackSources = { sessionId: S, cancelUrl: null, successUrl: null, supportUrl: null, supportEmail: null }

test('the way back from an unpaid checkout: cancelUrl, else the successUrl\'s site, else the support page, else the support email', () => {
  const cases: [Partial<WayBackSources>, ReturnType<typeof wayBack>][] = [
    [{ cancelUrl: 'https://shop.example/cart', successUrl: 'https://shop.example/thanks', supportUrl: 'https://help.example', supportEmail: 'help@shop.example' },
      { kind: 'return', href: `https://shop.example/cart?session_id=${S}` }],
    // The merchant's own parameters and fragment are kept; a session_id of theirs is replaced.
    [{ cancelUrl: 'https://shop.example/cart?order=A%201&session_id=x#top' }, { kind: 'return', href: `https://shop.example/cart?order=A%201&session_id=${S}#top` }],
    [{ successUrl: 'https://shop.example:8443/orders/42/thanks?x=1', supportUrl: 'https://help.example' }, { kind: 'return', href: 'https://shop.example:8443/' }],
    [{ successUrl: 'http://localhost:3000/thanks' }, { kind: 'return', href: 'http://localhost:3000/' }],
    [{ supportUrl: 'https://help.example/contact', supportEmail: 'help@shop.example' }, { kind: 'return', href: 'https://help.example/contact' }],
    [{ supportEmail: 'help@shop.example' }, { kind: 'contact', href: 'mailto:help@shop.example' }],
    [{}, null],
  ]
  for (const [given, expected] of cases) assert.deepEqual(wayBack({ ...none, ...given }), expected, JSON.stringify(given))
})
