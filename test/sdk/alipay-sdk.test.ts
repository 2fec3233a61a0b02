/**
 * `till fake alipay` against code nobody here wrote: Alipay's official Node SDK (`alipay-sdk`,
 * pinned in package.json). The SDK's requests are accepted by the fake (their signatures verified
 * with the app's key), the SDK verifies the fake's answers (validateSign, over the exact answer
 * text) in public-key and certificate mode, the page.pay and wap.pay URLs it builds lead to a
 * cashier that takes a payment, its checkNotifySign accepts the fake's notifications and refuses
 * tampered ones, a request signed with another key is refused with the gateway's real error, and
 * its bill query names a download that unzips into GBK CSV files.
 */
import assert from 'node:assert/strict'
import { createPrivateKey } from 'node:crypto'
import { test, type TestContext } from 'node:test'
import { AlipaySdk } from 'alipay-sdk'
import iconv from 'iconv-lite'
import JSZip from 'jszip'
import type { AppCredentials } from '../../src/providers/alipay/fake/index.js'
import type { KeyMode } from '../../src/providers/alipay/fake/store.js'
import { withSign } from '../../src/providers/alipay/sign.js'
import { alipayBillPublishedAt, alipaySdk, alipayWithApps, appPublicKey, sdkAcceptsRequest, sdkConfig } from '../helpers/alipay.js'
import { testClock } from '../helpers/app.js'
import { startReceiver } from '../helpers/receiver.js'

const SDK_VERSION = '4.14.0'
const MODES: KeyMode[] = ['publicKey', 'cert']

test('the pinned SDK is the one these checks were written against', async () => {
  const { default: pkg } = await import('alipay-sdk/package.json', { with: { type: 'json' } })
  assert.equal(pkg.version, SDK_VERSION)
})

/** A receiver for notify_url that acknowledges as Alipay wants, and the forms it got. */
async function notifyReceiver(t: TestContext) {
  const rx = await startReceiver(t, () => ({ status: 200, body: 'success' }))
  const forms = async (n: number) => (await rx.received(n)).map((r) => Object.fromEntries(new URLSearchParams(r.body.toString('utf8'))))
  return { url: `${rx.url}/notify`, forms, rx }
}

const order = (outTradeNo: string, totalAmount = '88.88') => ({ out_trade_no: outTradeNo, total_amount: totalAmount, subject: 'Blue mug' })

for (const mode of MODES) {
  test(`${mode} mode: the SDK's precreate, query, refund, refund query and close are accepted, and it verifies every answer's signature`, async (t) => {
    const { fake, ctl, apps } = await alipayWithApps(t)
    const sdk = alipaySdk(fake, apps[mode])
    const signed = { validateSign: true }

    const created = await sdk.exec('alipay.trade.precreate', { notifyUrl: 'http://127.0.0.1:9/notify', bizContent: order('att_sdk_1') }, signed)
    assert.equal(created.code, '10000')
    assert.match(created.qrCode, /^https:\/\/qr\.alipay\.com\/bax/)
    // Not scanned yet: Alipay has no trade, and says so.
    const before = await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_sdk_1' } }, signed)
    assert.equal(before.subCode, 'ACQ.TRADE_NOT_EXIST')

    await ctl.pay({ qr_code: created.qrCode })
    const paid = await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_sdk_1' } }, signed)
    assert.deepEqual([paid.code, paid.tradeStatus, paid.totalAmount, paid.buyerPayAmount], ['10000', 'TRADE_SUCCESS', '88.88', '88.88'])

    const refund = await sdk.exec('alipay.trade.refund', { bizContent: { out_trade_no: 'att_sdk_1', refund_amount: '8.88', out_request_no: 'ref_1' } }, signed)
    assert.deepEqual([refund.code, refund.fundChange, refund.refundFee, refund.tradeNo], ['10000', 'Y', '8.88', paid.tradeNo])
    const refundState = await sdk.exec('alipay.trade.fastpay.refund.query', { bizContent: { trade_no: paid.tradeNo, out_request_no: 'ref_1' } }, signed)
    assert.deepEqual([refundState.refundStatus, refundState.refundAmount], ['REFUND_SUCCESS', '8.88'])

    await sdk.exec('alipay.trade.precreate', { bizContent: order('att_sdk_2', '1.00') }, signed)
    await ctl.scan({ out_trade_no: 'att_sdk_2' })
    const closed = await sdk.exec('alipay.trade.close', { bizContent: { out_trade_no: 'att_sdk_2' } }, signed)
    assert.equal(closed.code, '10000')
    const afterClose = await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_sdk_2' } }, signed)
    assert.equal(afterClose.tradeStatus, 'TRADE_CLOSED')

    const requests = await ctl.requests()
    assert.equal(requests.length, 8)
    assert.ok(requests.every((r) => r.verified === true), 'the fake verified every SDK request')
    const identity = await ctl.identity()
    for (const r of requests) {
      // Certificate mode: the SDK computed the serials from the fake's certificates, and they matched.
      assert.equal(r.params.app_cert_sn, mode === 'cert' ? fake.store.apps.get(apps.cert.appId)!.appCertSn : undefined)
      assert.equal(r.params.alipay_root_cert_sn, mode === 'cert' ? identity.alipayRootCertSn : undefined)
    }
  })

  test(`${mode} mode: the SDK refuses an answer signed by someone else`, async (t) => {
    const { fake, apps } = await alipayWithApps(t)
    // The SDK trusting another key than Alipay's (the app's own, in a certificate in certificate mode).
    const config = sdkConfig(fake.gateway, apps[mode])
    const trusting = mode === 'cert' ? { ...config, alipayPublicCertContent: apps.cert.appCertificate } : { ...config, alipayPublicKey: appPublicKey(apps.publicKey) }
    const sdk = new AlipaySdk(trusting)
    await assert.rejects(sdk.exec('alipay.trade.precreate', { bizContent: order('att_sdk_3') }, { validateSign: true }), /验签失败/)
  })

  test(`${mode} mode: page.pay and wap.pay URLs the SDK builds lead to a cashier that takes the payment and returns with parameters the SDK verifies`, async (t) => {
    const { fake, ctl, apps } = await alipayWithApps(t)
    const sdk = alipaySdk(fake, apps[mode])
    const notify = await notifyReceiver(t)
    const products = [['alipay.trade.page.pay', 'FAST_INSTANT_TRADE_PAY', 'att_page'], ['alipay.trade.wap.pay', 'QUICK_WAP_WAY', 'att_wap']] as const
    for (const [n, [method, productCode, outTradeNo]] of products.entries()) {
      const url = sdk.pageExec(method, 'GET', {
        notifyUrl: notify.url, returnUrl: 'https://shop.example/return', bizContent: { ...order(outTradeNo, '12.30'), product_code: productCode },
      })
      assert.ok(url.startsWith(fake.gateway))
      const toCashier = await fetch(url, { redirect: 'manual' })
      assert.equal(toCashier.status, 302)
      const cashier = toCashier.headers.get('location')!
      const page = await (await fetch(cashier)).text()
      assert.match(page, /¥12\.30/)
      // Opening the cashier does not create the trade: only logging in or paying does.
      assert.equal((await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: outTradeNo } })).subCode, 'ACQ.TRADE_NOT_EXIST')

      const paid = await fetch(cashier, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
      assert.equal(paid.status, 302)
      const back = new URL(paid.headers.get('location')!)
      assert.equal(`${back.origin}${back.pathname}`, 'https://shop.example/return')
      const params = Object.fromEntries(back.searchParams)
      assert.equal(params.method, `${method}.return`)
      assert.deepEqual([params.out_trade_no, params.total_amount, params.app_id], [outTradeNo, '12.30', apps[mode].appId])
      assert.ok(sdk.checkNotifySign(params), 'the SDK verifies the return parameters')
      assert.ok(!sdk.checkNotifySign({ ...params, total_amount: '0.01' }))

      const [form] = (await notify.forms(n + 1)).slice(n)
      assert.deepEqual([form.out_trade_no, form.trade_status, form.total_amount], [outTradeNo, 'TRADE_SUCCESS', '12.30'])
      const state = await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: outTradeNo } }, { validateSign: true })
      assert.deepEqual([state.tradeStatus, state.tradeNo], ['TRADE_SUCCESS', params.trade_no])
    }
    assert.ok((await ctl.requests()).filter((r) => r.answer === 'page').every((r) => r.verified === true))
  })

  test(`${mode} mode: checkNotifySign and checkNotifySignV2 accept the fake's notifications and refuse tampered ones`, async (t) => {
    const { fake, ctl, apps } = await alipayWithApps(t)
    const sdk = alipaySdk(fake, apps[mode])
    const notify = await notifyReceiver(t)
    for (const no of ['att_n1', 'att_n2', 'att_n3', 'att_n4']) await sdk.exec('alipay.trade.precreate', { notifyUrl: notify.url, bizContent: order(no) })

    await ctl.pay({ out_trade_no: 'att_n1' })
    const [genuine] = await notify.forms(1)
    assert.equal(genuine.notify_type, 'trade_status_sync')
    assert.ok(sdk.checkNotifySign(genuine))
    assert.ok(sdk.checkNotifySignV2(genuine))
    assert.ok(!sdk.checkNotifySign({ ...genuine, total_amount: '0.01' }))
    assert.ok(!sdk.checkNotifySignV2({ ...genuine, trade_status: 'TRADE_FINISHED' }))

    // The tamper knob: a changed amount under the original signature, a broken signature, and a
    // genuine signature over a disagreeing amount (which only a check against the order catches).
    await ctl.tamper({ fields: { total_amount: '0.01' } })
    await ctl.pay({ out_trade_no: 'att_n2' })
    await ctl.tamper({ badSignature: true })
    await ctl.pay({ out_trade_no: 'att_n3' })
    await ctl.tamper({ fields: { total_amount: '0.01' }, resign: true })
    await ctl.pay({ out_trade_no: 'att_n4' })
    const [, forged, broken, resigned] = await notify.forms(4)
    assert.equal(forged.total_amount, '0.01')
    assert.ok(!sdk.checkNotifySign(forged) && !sdk.checkNotifySignV2(forged))
    assert.ok(!sdk.checkNotifySign(broken) && !sdk.checkNotifySignV2(broken))
    assert.equal(resigned.total_amount, '0.01')
    assert.ok(sdk.checkNotifySign(resigned) && sdk.checkNotifySignV2(resigned))
  })

  test(`${mode} mode: a request signed with another key is refused with isv.invalid-signature, the answer still signed`, async (t) => {
    const { fake, ctl, apps } = await alipayWithApps(t)
    const stranger = fake.addApp({ mode }) // another app's key, used under this app's id
    const sdk = new AlipaySdk({ ...sdkConfig(fake.gateway, apps[mode]), privateKey: stranger.privateKey })
    const refused = await sdk.exec('alipay.trade.precreate', { bizContent: order('att_bad') }, { validateSign: true })
    assert.deepEqual([refused.code, refused.msg, refused.subCode], ['40002', 'Invalid Arguments', 'isv.invalid-signature'])
    assert.match(refused.subMsg, /^验签出错，建议检查签名字符串或签名私钥与应用公钥是否匹配，网关生成的验签字符串为：.*app_id=/)
    const [logged] = await ctl.requests()
    assert.equal(logged.verified, false)
    assert.equal(fake.store.trade(apps[mode].appId, 'att_bad'), undefined, 'nothing was ordered')

    // A page URL whose amount was changed after signing lands on the gateway's error page.
    const url = new URL(alipaySdk(fake, apps[mode]).pageExec('alipay.trade.page.pay', 'GET', { bizContent: { ...order('att_bad_page'), product_code: 'FAST_INSTANT_TRADE_PAY' } }))
    url.searchParams.set('biz_content', url.searchParams.get('biz_content')!.replace('88.88', '0.01'))
    const page = await fetch(url, { redirect: 'manual' })
    assert.equal(page.status, 200)
    assert.match(await page.text(), /错误代码 <code id="error-code">invalid-signature<\/code>/)
  })
}

test('certificate mode: wrong certificate serials are refused with the gateway\'s codes', async (t) => {
  const { fake, apps } = await alipayWithApps(t)
  const other = fake.addApp({ mode: 'cert' })
  const config = sdkConfig(fake.gateway, apps.cert)
  const precreate = (cfg: typeof config) => new AlipaySdk(cfg).exec('alipay.trade.precreate', { bizContent: order('att_sn') }, { validateSign: true })
  // Another app's certificate: its serial is not this app's.
  assert.equal((await precreate({ ...config, appCertContent: other.appCertificate })).subCode, 'isv.app-cert-not-exist')
  // Alipay's real root bundle instead of the fake's.
  const realRoot = await import('node:fs').then((fs) => fs.readFileSync(new URL('../../testdata/alipay/alipayRootCert.crt', import.meta.url), 'utf8'))
  assert.equal((await precreate({ ...config, alipayRootCertContent: realRoot })).subCode, 'isv.invalid-alipay-root-cert-sn')
  // The public-key-mode configuration of a certificate-mode app sends no serials.
  const { appCertContent: _a, alipayPublicCertContent: _b, alipayRootCertContent: _c, ...noCerts } = config
  assert.equal((await precreate({ ...noCerts, alipayPublicKey: (await import('../../src/providers/alipay/fake/control.js')).identity(fake.store).alipayPublicKey })).subCode, 'isv.missing-app-cert-sn')
})

test('an unknown app id is refused with isv.invalid-app-id, unsigned, as Alipay answers', async (t) => {
  const { fake, apps } = await alipayWithApps(t)
  const app: AppCredentials = { ...apps.publicKey, appId: '2021000000000000' }
  const res = await fetch(new AlipaySdk(sdkConfig(fake.gateway, app)).pageExec('alipay.trade.precreate', 'GET', { bizContent: order('att_x') }))
  const body = await res.text()
  assert.equal(res.headers.get('content-type'), 'text/html;charset=utf-8')
  assert.equal(body, '{"alipay_trade_precreate_response":{"code":"40002","msg":"Invalid Arguments","sub_code":"isv.invalid-app-id","sub_msg":"无效的AppID参数"}}')
})

test('the SDK\'s own verifier (what test/helpers/alipay.ts sdkAcceptsRequest applies to an adapter\'s requests) accepts the SDK\'s requests and Till\'s signing, and refuses a changed one', async (t) => {
  const { fake, ctl, apps } = await alipayWithApps(t)
  await alipaySdk(fake, apps.cert).exec('alipay.trade.precreate', { bizContent: order('att_v') })
  const [logged] = await ctl.requests()
  assert.ok(sdkAcceptsRequest(logged.params, apps.cert))
  const till = withSign({
    app_id: apps.publicKey.appId, method: 'alipay.trade.query', charset: 'utf-8', sign_type: 'RSA2', timestamp: '2026-05-20 12:00:00', version: '1.0',
    biz_content: JSON.stringify({ out_trade_no: 'att_v', note: '蓝色杯子 & 盘 = 100%' }),
  }, createPrivateKey(apps.publicKey.privateKey))
  assert.ok(sdkAcceptsRequest(till, apps.publicKey))
  assert.ok(!sdkAcceptsRequest({ ...till, timestamp: '2026-05-20 12:00:01' }, apps.publicKey))
  assert.ok(!sdkAcceptsRequest(till, apps.cert), 'another app\'s key')
})

for (const mode of MODES) {
  test(`${mode} mode: the SDK's bill query is accepted and its signed answer verified; the download it names is a zip of GBK CSV files with the day's trade`, async (t) => {
    const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
    const { fake, ctl, apps } = await alipayWithApps(t, { clock })
    const sdk = alipaySdk(fake, apps[mode])
    await sdk.exec('alipay.trade.precreate', { bizContent: order('att_sdk_bill') }, { validateSign: true })
    await ctl.pay({ out_trade_no: 'att_sdk_bill' })
    clock.set(alipayBillPublishedAt('2026-05-20'))
    const answer = await sdk.exec('alipay.data.dataservice.bill.downloadurl.query', { bizContent: { bill_type: 'trade', bill_date: '2026-05-20' } }, { validateSign: true })
    assert.equal(answer.code, '10000', JSON.stringify(answer))
    const zip = await JSZip.loadAsync(Buffer.from(await (await fetch(answer.billDownloadUrl as string)).arrayBuffer()), { checkCRC32: true })
    const files = await Promise.all(Object.values(zip.files).map(async (f) => [f.name, iconv.decode(await f.async('nodebuffer'), 'gbk')] as const))
    assert.deepEqual(files.map(([name]) => name.replace(/^\d+_/, '')), ['20260520_业务明细.csv', '20260520_业务明细(汇总).csv'])
    assert.match(files[0][1], /^#支付宝业务明细查询\r\n/)
    assert.match(files[0][1], /\r\n\d{28}\t,att_sdk_bill\t,交易\t,Blue mug,2026-05-20 12:00:00,2026-05-20 12:00:00,.*,88\.88,88\.88,/)
    assert.match(files[1][1], /\r\n合计,,1,0,88\.88,88\.88,/)
  })
}
