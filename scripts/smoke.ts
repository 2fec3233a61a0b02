/**
 * A quick smoke test of the service under whatever Node runs this script (scripts/node-lts.sh runs
 * it under the newest LTS): a real Till process on its own embedded PostgreSQL in a fresh DATA_DIR,
 * the Demo key it prints, a session created, paid and partly refunded, the receipt page, /docs, and
 * a clean stop on SIGTERM. Exits non-zero, saying what failed, at the first thing that is wrong.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { api, demoKey, startTill, stopTill } from '../test/helpers/process.js'

const dir = mkdtempSync(path.join(process.env.TEST_DATA ?? os.tmpdir(), 'smoke-'))
const till = await startTill(dir, {})
try {
  const key = await demoKey(till)
  const created = await api(till, 'POST', '/api/v1/checkout', key, { amount: 9900, currency: 'CNY', metadata: { order: 'smoke' } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const paid = await api(till, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, key, {})
  assert.equal(paid.body.status, 'paid', JSON.stringify(paid.body))
  const refund = await api(till, 'POST', '/api/v1/refunds', key, { recordId: paid.body.record.id, amount: 1000 })
  assert.equal(refund.body.status, 'partially_refunded', JSON.stringify(refund.body))
  const receipt = await fetch(`${till.base}/r/${paid.body.record.id}`)
  assert.equal(receipt.status, 200)
  assert.match(await receipt.text(), /¥99\.00\u00a0CNY/)
  const docs = await fetch(`${till.base}/docs`)
  assert.equal(docs.status, 200)
  const bundle = /<script src="([^"]+)"/.exec(await docs.text())
  assert.equal((await fetch(till.base + bundle![1])).status, 200)
} finally {
  const exit = await stopTill(till)
  rmSync(dir, { recursive: true, force: true })
  assert.equal(exit.code, 0, `till exited with ${JSON.stringify(exit)}; stderr:\n${till.stderr()}`)
}
console.log(`smoke test passed on Node ${process.version}`)
