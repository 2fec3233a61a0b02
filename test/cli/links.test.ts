/** `till links create|list|get|update|deactivate` against a real Till, as the key's merchant and mode. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'

test('links: create fixed and ranged, list as a table and JSON, get, update, deactivate; a bad flag is a usage error', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const made = await till(['links', 'create', '--currency', 'CNY', '--amount', '9900', '--description', 'Green tea', '--metadata', 'sku=T-1', '--max-payments', '5', '--json'], { env })
  assert.equal(made.code, 0, made.stderr)
  const link = JSON.parse(made.stdout)
  assert.deepEqual([link.amount, link.description, link.metadata, link.maxPayments, link.active], [9900, 'Green tea', { sku: 'T-1' }, 5, true])
  ta.clock.advance(1000)
  const ranged = await till(['links', 'create', '--currency', 'JPY', '--min-amount', '500', '--max-amount', '50000'], { env })
  assert.equal(ranged.code, 0, ranged.stderr)
  assert.match(ranged.stdout, /^plink_\w+ {2}active {2}¥500 JPY to ¥50,000 JPY {2}test mode\nurl: http/)

  const list = await till(['links', 'list'], { env })
  assert.equal(list.code, 0, list.stderr)
  assert.match(list.stdout, /ID\s+STATE\s+AMOUNT\s+PAID\s+URL/)
  assert.match(list.stdout, new RegExp(`${link.id}\\s+active\\s+¥99\\.00 CNY\\s+0/5\\s+${link.url.replace(/[.]/g, '\\.')}`))
  const json = JSON.parse((await till(['links', 'list', '--json', '--limit', '1'], { env })).stdout)
  assert.equal(json.data.length, 1)
  assert.equal(json.hasMore, true)

  const got = await till(['links', 'get', link.id], { env })
  assert.match(got.stdout, /description: Green tea\nmetadata sku: T-1/)
  const updated = JSON.parse((await till(['links', 'update', link.id, '--max-payments', '7', '--json'], { env })).stdout)
  assert.equal(updated.maxPayments, 7)
  const off = await till(['links', 'deactivate', link.id], { env })
  assert.equal(off.code, 0, off.stderr)
  assert.match(off.stdout, /inactive/)
  assert.equal((await ta.request('GET', `/api/v1/payment_links/${link.id}`, { key: ta.merchant.testKey })).body.active, false)

  const bad = await till(['links', 'create', '--currency', 'CNY'], { env })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /give --amount, or --min-amount and --max-amount/)
  const refused = await till(['links', 'create', '--currency', 'CNY', '--amount', '100', '--min-amount', '1', '--max-amount', '2'], { env })
  assert.notEqual(refused.code, 0)
  assert.match(refused.stderr, /amount: give either amount, or minAmount and maxAmount, not both/)
})
