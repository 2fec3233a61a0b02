/**
 * `till fake wechat --service cross_border` as a merchant runs it: the configuration it prints is a
 * WeChat Pay Global one that Till accepts and that works against it (a JPY order placed, paid at
 * the rate set with the /rates knob, and queried with what the payer was charged).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { moduleOf } from '../../src/providers/index.js'
import { createWechatProvider } from '../../src/providers/wechat/index.js'
import { wechatFakeControl } from '../../src/providers/wechat/fake/client.js'
import { runFakeCli } from '../helpers/fake-cli.js'

const runFake = (args: string[]) => runFakeCli<any>('wechat', args)

test('till fake wechat --service cross_border prints a WeChat Pay Global configuration that pays a JPY order', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'till-fake-wechat-global-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const { printed, stop } = await runFake(['--service', 'cross_border', '--settlement-currency', 'JPY', '--state', path.join(dir, 'state.json')])
  t.after(() => stop())
  assert.deepEqual(printed.settings, { apiBase: printed.url, service: 'cross_border', settlementCurrency: 'JPY', merchantCategoryCode: '5999' })
  // What Till's admin API would check on save.
  moduleOf('wechat').validateCredentials(printed.credentials)
  moduleOf('wechat').validateSettings(printed.settings, true)

  const provider = createWechatProvider({ timeoutMs: 5000 })
  t.after(() => provider.client.close())
  const cfg = { id: 'pc_cli', label: printed.label, credentials: printed.credentials, settings: printed.settings }
  const ctl = wechatFakeControl(printed.url)
  await ctl.rates({ JPY: 0.0475 })
  const attemptId = newId('att')
  const res = await provider.createAttempt(cfg, {
    attemptId, sessionId: newId('sess'), amount: 1500, currency: 'JPY', description: 'Tea set', channel: 'native',
    notifyUrl: 'http://127.0.0.1:9/hooks/wechat/pc_cli', returnUrl: 'http://127.0.0.1:9/done', checkoutUrl: 'http://127.0.0.1:9', expiresAt: new Date(Date.now() + 600_000), options: {},
  })
  assert.equal(res.action.kind, 'qr')
  await ctl.pay({ out_trade_no: attemptId })
  const state = await provider.queryPayment(cfg, { attemptId, providerRef: null, data: {} })
  assert.equal(state.status, 'succeeded')
  assert.deepEqual(state.data, { charged: { amount: 7125, currency: 'CNY', rate: '0.0475' } })
  assert.equal(state.amount, 1500)
})
