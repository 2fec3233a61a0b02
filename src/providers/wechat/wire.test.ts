/** wire.ts and browser.ts: pure conversions, table-driven, literal expectations. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProviderError, type AttemptInput } from '../types.js'
import { channelForUserAgent, oauthAuthorizeUrl, oauthTokenUrl, openidFromTokenAnswer } from './browser.js'
import {
  errorFrom, h5RedirectUrl, isValidOutTradeNo, orderDescription, orderRequest, parseWechatTime, paymentFact, paymentState,
  refundFact, refundState, toBeijingTime,
} from './wire.js'

const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => ({
  attemptId: 'att_0123456789ABCDEFGHIJabcd',
  sessionId: 'sess_0123456789ABCDEFGHIJabcd',
  amount: 9900,
  currency: 'CNY',
  description: 'Order #42',
  channel: 'native',
  notifyUrl: 'https://till.example.com/hooks/wechat/pc_0123456789ABCDEFGHIJabcd',
  returnUrl: 'https://till.example.com/c/sess_0123456789ABCDEFGHIJabcd/done', checkoutUrl: 'https://till.example.com/c/sess_0123456789ABCDEFGHIJabcd',
  expiresAt: new Date('2026-05-20T04:34:56.789Z'),
  options: {},
  ...over,
})
const M = { mchId: '1230000109', appId: 'wxd678efh567hg6787' }

test('out_trade_no: 6 to 32 of [0-9A-Za-z_-|*]; our 28-character attempt ids fit', () => {
  for (const ok of ['att_0123456789ABCDEFGHIJabcd', 'abcdef', 'a-b|c*d_e', 'x'.repeat(32)]) assert.equal(isValidOutTradeNo(ok), true, ok)
  for (const bad of ['abcde', 'x'.repeat(33), 'att.0123456789', 'att 0123', '订单123456', 'abc/def']) assert.equal(isValidOutTradeNo(bad), false, bad)
})

test('time_expire is RFC 3339 in +08:00, whole seconds rounded down', () => {
  assert.equal(toBeijingTime(new Date('2026-05-20T04:34:56.789Z')), '2026-05-20T12:34:56+08:00')
  assert.equal(toBeijingTime(new Date('2026-12-31T16:00:00.000Z')), '2027-01-01T00:00:00+08:00')
  assert.equal(parseWechatTime('2018-06-08T10:34:56+08:00')!.toISOString(), '2018-06-08T02:34:56.000Z')
  assert.equal(parseWechatTime('not a time'), undefined)
  assert.equal(parseWechatTime(undefined), undefined)
})

test('description: cut to 127 characters (not bytes), with a fallback naming the session', () => {
  assert.equal(orderDescription('Order #42', 'sess_x'), 'Order #42')
  assert.equal(orderDescription(null, 'sess_0123456789ABCDEFGHIJabcd'), 'Payment sess_0123456789ABCDEFGHIJabcd')
  assert.equal(orderDescription('   ', 'sess_x'), 'Payment sess_x')
  assert.equal(orderDescription('字'.repeat(200), 'sess_x'), '字'.repeat(127))
  assert.equal(orderDescription('😀'.repeat(130), 'sess_x'), '😀'.repeat(127))
})

test('the Native order body carries exactly the documented fields', () => {
  assert.deepEqual(orderRequest('native', M, attempt()), {
    appid: 'wxd678efh567hg6787',
    mchid: '1230000109',
    description: 'Order #42',
    out_trade_no: 'att_0123456789ABCDEFGHIJabcd',
    time_expire: '2026-05-20T12:34:56+08:00',
    notify_url: 'https://till.example.com/hooks/wechat/pc_0123456789ABCDEFGHIJabcd',
    amount: { total: 9900, currency: 'CNY' },
  })
})

test('JSAPI needs the openid and H5 the client IP; both go where WeChat expects them', () => {
  assert.deepEqual(orderRequest('jsapi', M, attempt({ payerId: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' })).payer, { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' })
  assert.deepEqual(orderRequest('h5', M, attempt({ clientIp: '203.0.113.9' })).scene_info, { payer_client_ip: '203.0.113.9', h5_info: { type: 'Wap' } })
  const refusals: Array<[Parameters<typeof orderRequest>[0], AttemptInput, string]> = [
    ['jsapi', attempt(), 'openid_required'],
    ['h5', attempt(), 'client_ip_required'],
    ['native', attempt({ currency: 'USD' }), 'unsupported_currency'],
    ['native', attempt({ attemptId: 'att.bad' }), 'invalid_out_trade_no'],
    ['native', attempt({ notifyUrl: 'https://till.example.com/hooks/wechat/pc_1?x=1' }), 'invalid_notify_url'],
  ]
  for (const [channel, a, code] of refusals) {
    assert.throws(() => orderRequest(channel, M, a), (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === code, code)
  }
})

test('H5 appends the encoded return address to h5_url', () => {
  assert.equal(
    h5RedirectUrl('https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=wx20161110163838f231619da20804912345&package=1037687096', 'https://till.example.com/c/sess_1/done?a=1'),
    'https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=wx20161110163838f231619da20804912345&package=1037687096&redirect_url=https%3A%2F%2Ftill.example.com%2Fc%2Fsess_1%2Fdone%3Fa%3D1',
  )
})

test('trade_state maps to attempt states; REFUND means paid', () => {
  const paid = { out_trade_no: 'att_1', transaction_id: '4200000000000000000000000001', success_time: '2026-05-20T12:00:01+08:00', amount: { total: 9900, currency: 'CNY' } }
  assert.deepEqual(paymentState({ ...paid, trade_state: 'SUCCESS' }), { status: 'succeeded', providerRef: '4200000000000000000000000001', amount: 9900, currency: 'CNY', paidAt: new Date('2026-05-20T04:00:01Z') })
  assert.equal(paymentState({ ...paid, trade_state: 'REFUND' }).status, 'succeeded')
  for (const [s, want] of [['NOTPAY', 'pending'], ['USERPAYING', 'pending'], ['CLOSED', 'closed'], ['REVOKED', 'closed'], ['PAYERROR', 'failed'], ['SOMETHING_NEW', 'pending'], [undefined, 'pending']] as const) {
    assert.deepEqual(paymentState({ trade_state: s }), { status: want }, String(s))
  }
  assert.deepEqual(paymentFact({ ...paid, trade_state: 'SUCCESS' }), {
    kind: 'payment', attemptId: 'att_1', status: 'succeeded', providerRef: '4200000000000000000000000001', amount: 9900, currency: 'CNY', paidAt: new Date('2026-05-20T04:00:01Z'),
  })
})

test('refund status: PROCESSING and ABNORMAL are pending, SUCCESS succeeded, CLOSED failed', () => {
  assert.deepEqual(refundState('PROCESSING', '50000000382019052709732678859'), { status: 'pending', providerRefundRef: '50000000382019052709732678859' })
  assert.deepEqual(refundState('SUCCESS', 'r1'), { status: 'succeeded', providerRefundRef: 'r1' })
  assert.deepEqual(refundState('SUCCESS', 'r1', 'CNY'), { status: 'succeeded', providerRefundRef: 'r1', currency: 'CNY' })
  assert.deepEqual(refundState('CLOSED', 'r1'), { status: 'failed', providerRefundRef: 'r1', failureReason: 'CLOSED: the refund was closed by WeChat Pay' })
  assert.deepEqual(refundState('ABNORMAL', 'r1'), { status: 'pending', providerRefundRef: 'r1', failureReason: 'ABNORMAL: the refund could not reach the payer; handle it in the merchant platform' })
})

test('a refund notice names our refund only when out_refund_no is one of our ids', () => {
  const n = { out_trade_no: 'att_1', refund_id: '50000000382019052709732678859', refund_status: 'SUCCESS', amount: { total: 9900, refund: 100 } }
  assert.deepEqual(refundFact({ ...n, out_refund_no: 'ref_0123456789ABCDEFGHIJabcd' }), {
    kind: 'refund', refundId: 'ref_0123456789ABCDEFGHIJabcd', providerRefundRef: '50000000382019052709732678859', attemptId: 'att_1', status: 'succeeded', amount: 100, currency: 'CNY',
  })
  // The mainland's plaintext names no currency (its API refunds CNY only); one named is kept as named.
  assert.equal(refundFact({ ...n, amount: { ...n.amount, currency: 'USD' } }).currency, 'USD')
  // Started in the merchant platform: recorded as a refund Till did not start.
  assert.equal(refundFact({ ...n, out_refund_no: '1217752501201407033233368018' }).refundId, undefined)
})

test('errors: 4xx is a refusal, 429 and 5xx an unknown outcome', () => {
  const cases: Array<[number, string | undefined, 'rejected' | 'unknown', string]> = [
    [400, 'PARAM_ERROR', 'rejected', 'PARAM_ERROR'],
    [401, 'SIGN_ERROR', 'rejected', 'SIGN_ERROR'],
    [403, 'NOT_ENOUGH', 'rejected', 'NOT_ENOUGH'],
    [404, 'RESOURCE_NOT_EXISTS', 'rejected', 'RESOURCE_NOT_EXISTS'],
    [400, 'SOMETHING_NEW', 'rejected', 'SOMETHING_NEW'],
    [429, 'FREQUENCY_LIMITED', 'unknown', 'FREQUENCY_LIMITED'],
    [500, 'SYSTEM_ERROR', 'unknown', 'SYSTEM_ERROR'],
    [502, undefined, 'unknown', 'HTTP_502'],
  ]
  for (const [status, code, outcome, want] of cases) {
    const e = errorFrom(status, code ? { code, message: 'm' } : null)
    assert.equal(e.outcome, outcome, `${status} ${code}`)
    assert.equal(e.code, want)
  }
  assert.equal(errorFrom(401, { code: 'SIGN_ERROR', message: '签名错误' }).message, 'WeChat Pay 401 SIGN_ERROR: 签名错误')
})

test('the channel follows the browser: WeChat → JSAPI, other phones → H5, desktop → Native', () => {
  const cases: Array<[string | undefined, string]> = [
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN', 'jsapi'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36 XWEB/1160065 MMWEBSDK/20240301 MicroMessenger/8.0.48.2580(0x28003036) WeChat/arm64', 'jsapi'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1', 'h5'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36', 'h5'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'native'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 WindowsWechat', 'native'],
    [undefined, 'native'],
  ]
  for (const [ua, want] of cases) assert.equal(channelForUserAgent(ua), want, ua)
})

test('the snsapi_base OAuth addresses, for the real hosts and for a fake at apiBase', () => {
  assert.equal(
    oauthAuthorizeUrl({ appId: 'wxd678efh567hg6787', redirectUri: 'https://till.example.com/c/sess_1/wechat?x=1', state: 'att' }),
    'https://open.weixin.qq.com/connect/oauth2/authorize?appid=wxd678efh567hg6787&redirect_uri=https%3A%2F%2Ftill.example.com%2Fc%2Fsess_1%2Fwechat%3Fx%3D1&response_type=code&scope=snsapi_base&state=att#wechat_redirect',
  )
  assert.equal(
    oauthTokenUrl({ appId: 'wxd678efh567hg6787', appSecret: 'SECRET', code: 'CODE', apiBase: 'http://127.0.0.1:9/' }),
    'http://127.0.0.1:9/sns/oauth2/access_token?appid=wxd678efh567hg6787&secret=SECRET&code=CODE&grant_type=authorization_code',
  )
  assert.deepEqual(openidFromTokenAnswer({ access_token: 'A', openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', scope: 'snsapi_base' }), { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' })
  assert.deepEqual(openidFromTokenAnswer({ errcode: 40029, errmsg: 'invalid code' }), { error: '40029: invalid code' })
  assert.deepEqual(openidFromTokenAnswer(null), { error: 'no_openid: no openid in the answer' })
})
