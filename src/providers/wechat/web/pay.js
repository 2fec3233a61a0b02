// Inside WeChat, the JSAPI page hands its parameters to WeixinJSBridge (appended to the pages'
// till.js; src/providers/module.ts `page.script`).
;(function () {
  'use strict'
  window.TillApps = window.TillApps || {}
  // done(ok): "ok" is not authoritative; the relay waits for WeChat's own confirmation.
  window.TillApps.wechat = function (params, done) {
    var started = false
    function invoke() {
      if (started) return
      started = true
      window.WeixinJSBridge.invoke('getBrandWCPayRequest', params, function (res) {
        done(!!res && res.err_msg === 'get_brand_wcpay_request:ok')
      })
    }
    if (window.WeixinJSBridge && typeof window.WeixinJSBridge.invoke === 'function') invoke()
    else document.addEventListener('WeixinJSBridgeReady', invoke, false)
  }
})()
