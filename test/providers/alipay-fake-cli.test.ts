/**
 * `till fake alipay` as a merchant runs it: the configuration it prints is one Till's alipay module
 * accepts, Alipay's SDK configured from it is served (its answers verified), and a restart on the
 * same state file keeps the app, keys and certificates valid.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { AlipaySdk } from 'alipay-sdk'
import { isLiveProvider, moduleOf, type LiveProviderId } from '../../src/providers/index.js'
import { alipayFakeControl } from '../../src/providers/alipay/fake/client.js'
import { runFakeCli } from '../helpers/fake-cli.js'

const ALIPAY = 'alipay' as LiveProviderId
const runFake = (args: string[]) => runFakeCli<any>(ALIPAY, args)

/** Alipay's SDK from the printed configuration, as a merchant would set it up. */
function sdkFrom(printed: any) {
  const c = printed.credentials
  const base = { appId: c.appId, privateKey: c.privateKey, keyType: 'PKCS8' as const, gateway: `${printed.settings.apiBase}/gateway.do` }
  return new AlipaySdk(c.appCert ? { ...base, appCertContent: c.appCert, alipayPublicCertContent: c.alipayCert, alipayRootCertContent: c.alipayRootCert } : { ...base, alipayPublicKey: c.alipayPublicKey })
}

test('till fake alipay prints a configuration Till accepts, serves it in both key modes, and keeps it across a restart', {
  skip: !isLiveProvider('alipay') && 'needs alipay in src/providers/index.ts (registered with the adapter)',
}, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'till-fake-alipay-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const state = path.join(dir, 'state.json')

  const first = await runFake(['--mode', 'cert', '--state', state])
  assert.equal(first.printed.provider, 'alipay')
  assert.deepEqual(Object.keys(first.printed.credentials).sort(), ['alipayCert', 'alipayRootCert', 'appCert', 'appId', 'privateKey'])
  assert.deepEqual(first.printed.settings, { apiBase: first.printed.url })
  // What Till's admin API checks on save.
  moduleOf(ALIPAY).validateCredentials(first.printed.credentials)
  moduleOf(ALIPAY).validateSettings(first.printed.settings, true)
  const created = await sdkFrom(first.printed).exec('alipay.trade.precreate', { bizContent: { out_trade_no: 'att_cli', total_amount: '9.90', subject: 'Tea' } }, { validateSign: true })
  assert.equal(created.code, '10000')
  assert.equal((await alipayFakeControl(first.printed.url).requests())[0].verified, true)
  await first.stop()

  // The same app in public-key mode, then certificate mode again: the saved certificates still serve.
  const second = await runFake(['--state', state])
  t.after(() => second.stop())
  assert.equal(second.printed.credentials.appId, first.printed.credentials.appId)
  assert.deepEqual(Object.keys(second.printed.credentials).sort(), ['alipayPublicKey', 'appId', 'privateKey'])
  assert.equal((await sdkFrom(second.printed).exec('alipay.trade.precreate', { bizContent: { out_trade_no: 'att_cli2', total_amount: '1.00', subject: 'Tea' } }, { validateSign: true })).code, '10000')
  await second.stop()
  const third = await runFake(['--mode', 'cert', '--state', state])
  t.after(() => third.stop())
  assert.deepEqual(third.printed.credentials, first.printed.credentials)
  const again = { ...third.printed, credentials: first.printed.credentials }
  assert.equal((await sdkFrom(again).exec('alipay.trade.precreate', { bizContent: { out_trade_no: 'att_cli3', total_amount: '1.00', subject: 'Tea' } }, { validateSign: true })).code, '10000')
})
