/**
 * The console's payment links (docs/console.md#pages): create (a fixed amount or the buyer's range),
 * list with the URL, deactivate, and the QR code downloaded as PNG and SVG, encoding the link's URL.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import QRCode from 'qrcode'
import { startTestApp } from '../helpers/app.js'
import { signedIn } from '../helpers/console.js'
import { getPage } from '../helpers/pages.js'

const QR_OPTIONS = { errorCorrectionLevel: 'M' as const, margin: 2, width: 512 }

test('a link made in the console is listed with its URL, deactivated there, and its QR codes carry its URL', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const empty = await browser.get('/console/test/links')
  assert.equal(empty.status, 200)
  assert.match(empty.html, /No payment links in this mode yet/)

  const made = await browser.submit('/console/test/links', '/console/test/links', { amount: '25.50', currency: 'CNY', description: 'Oolong', maxPayments: '3' })
  assert.equal(made.status, 303)
  const links = (await ta.request('GET', '/api/v1/payment_links', { key: m.testKey })).body.data
  assert.equal(links.length, 1)
  const link = links[0]
  assert.deepEqual([link.amount, link.currency, link.description, link.maxPayments, link.active], [2550, 'CNY', 'Oolong', 3, true])
  const listed = await browser.get(made.location!)
  assert.match(listed.html, /The link is ready/)
  assert.ok(listed.html.includes(`<code id="url-${link.id}">${link.url}</code>`))
  assert.match(listed.html, /¥25\.50/)
  assert.match(listed.html, /0 \/ 3/)

  const png = await fetch(`${ta.baseUrl}/console/test/links/${link.id}/qr.png`, { headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } })
  assert.equal(png.status, 200)
  assert.equal(png.headers.get('content-type'), 'image/png')
  assert.equal(png.headers.get('content-disposition'), `attachment; filename="${link.id}.png"`)
  assert.deepEqual(Buffer.from(await png.arrayBuffer()), await QRCode.toBuffer(link.url, { ...QR_OPTIONS, type: 'png' }))
  const svg = await browser.get(`/console/test/links/${link.id}/qr.svg`)
  assert.equal(svg.status, 200)
  assert.match(svg.headers.get('content-type') ?? '', /^image\/svg\+xml/)
  assert.equal(svg.html, await QRCode.toString(link.url, { ...QR_OPTIONS, type: 'svg' }))
  // The QR code of the live mode's page, or of another merchant's link, is not found.
  assert.equal((await browser.get(`/console/live/links/${link.id}/qr.png`)).status, 404)

  const off = await browser.submit('/console/test/links', `/console/test/links/${link.id}/deactivate`)
  assert.equal(off.status, 303)
  assert.equal((await ta.request('GET', `/api/v1/payment_links/${link.id}`, { key: m.testKey })).body.active, false)
  assert.equal((await getPage(ta, `/l/${link.id}`)).status, 410)
  assert.match((await browser.get('/console/test/links')).html, /Inactive/)
})

test('the console makes a buyer-entered range, and refuses a form with both kinds of amount, making nothing', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const refused = await browser.submit('/console/test/links', '/console/test/links', { amount: '10', minAmount: '1', maxAmount: '100', currency: 'JPY' })
  assert.equal(refused.status, 400)
  assert.match(refused.html, /The link was not created: amount: give either amount, or minAmount and maxAmount, not both/)
  for (const [fields, why] of [
    [{ amount: 'ten', currency: 'JPY' }, 'amount: must be a whole number of minor units'],
    [{ amount: '10', currency: 'XYZ' }, 'currency: must be one of'],
    [{ amount: '10', currency: 'JPY', maxPayments: '1.5' }, 'maxPayments: must be a whole number from 1 to 1000000'],
  ] as const) {
    const bad = await browser.submit('/console/test/links', '/console/test/links', fields)
    assert.equal(bad.status, 400, JSON.stringify(fields))
    assert.ok(bad.html.includes(why), why)
  }
  assert.equal((await ta.request('GET', '/api/v1/payment_links', { key: m.testKey })).body.data.length, 0)
  const made = await browser.submit('/console/test/links', '/console/test/links', { amount: '', minAmount: '100', maxAmount: '5,000', currency: 'JPY' })
  assert.equal(made.status, 303)
  const link = (await ta.request('GET', '/api/v1/payment_links', { key: m.testKey })).body.data[0]
  assert.deepEqual([link.amount, link.minAmount, link.maxAmount], [null, 100, 5000])
})
