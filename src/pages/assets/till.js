// Progressive enhancement only: every page works without this file.
// 1. The checkout countdown ticks, and when time is up the page reloads once to show "expired".
// 2. A form is sent once, however often its button is pressed.
// 3. A page waiting for a payment (a QR code shown) asks the server, which answers as soon as the
//    session is no longer processing, then goes to the relay.
// 4. Inside a provider's app, the in-app page hands its parameters (data-<id>-pay) to the app's bridge,
//    which the provider's own script registers in window.TillApps (src/providers/<id>/web/).
// 5. Times (<time datetime>), written in UTC by the server, are shown in the customer's own time zone.
(function () {
  'use strict'

  function two(n) {
    return (n < 10 ? '0' : '') + n
  }

  function clockText(seconds) {
    var s = Math.max(0, Math.floor(seconds))
    var h = Math.floor(s / 3600)
    var m = Math.floor((s % 3600) / 60)
    return h > 0 ? h + ':' + two(m) + ':' + two(s % 60) : m + ':' + two(s % 60)
  }

  function startTimer(el) {
    var total = Number(el.getAttribute('data-seconds-left'))
    if (!(total > 0)) return
    var started = Date.now()
    var timer = setInterval(function () {
      var left = total - (Date.now() - started) / 1000
      if (left > 0) {
        el.textContent = clockText(left)
        return
      }
      clearInterval(timer)
      el.textContent = el.getAttribute('data-expired-text') || '0:00'
      // A moment's grace so the server agrees the session has expired; loaded at 0, it never reloads.
      setTimeout(function () {
        window.location.reload()
      }, 1500)
    }, 1000)
  }

  // The zone's name is part of the text (GMT+9, EST), so a UTC fallback is never mistaken for it.
  var TIME_FIELDS = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' }

  // The zone goes after the time, joined to it by a no-break space, in every language: Chinese
  // formats put it between the date and the time ("2026年11月21日 GMT+8 17:30"), Hong Kong's in
  // brackets after it (whose emptied pair goes too); the server writes "… 09:30 UTC".
  function localTime(el) {
    var when = new Date(el.getAttribute('datetime'))
    if (isNaN(when.getTime())) return
    try {
      var zone = ''
      var text = new Intl.DateTimeFormat(document.documentElement.lang || undefined, TIME_FIELDS).formatToParts(when).map(function (p) {
        if (p.type !== 'timeZoneName') return p.value
        zone = p.value
        return ''
      }).join('').replace(/[[(]\s*[\])]/g, '').replace(/\s+/g, ' ').trim()
      el.textContent = zone ? text + '\u00a0' + zone : text
    } catch (e) {
      // An old browser without these options: the server's UTC text stays.
    }
  }

  function sendOnce(form) {
    form.addEventListener('submit', function (event) {
      if (form.getAttribute('data-sent')) {
        event.preventDefault()
        return
      }
      form.setAttribute('data-sent', '1')
      // aria-busy rather than disabled: a disabled button would drop its own name=value from the post.
      form.setAttribute('aria-busy', 'true')
    })
  }

  function awaitPayment(el) {
    var failures = 0
    function ask() {
      fetch(el.getAttribute('data-await-payment'), { headers: { accept: 'application/json' }, cache: 'no-store' })
        .then(function (res) {
          if (!res.ok) throw new Error('status ' + res.status)
          return res.json()
        })
        .then(function (body) {
          failures = 0
          if (body.status === 'processing') ask()
          else window.location.assign(el.getAttribute('data-done-url'))
        })
        .catch(function () {
          // Server restarting or network gone: back off, the "I have paid" link still works.
          failures++
          setTimeout(ask, Math.min(30000, 1000 * Math.pow(2, failures)))
        })
    }
    ask()
  }

  function payInApp(el, attribute, pay) {
    pay(JSON.parse(el.getAttribute(attribute)), function (ok) {
      window.location.assign(el.getAttribute(ok ? 'data-done-url' : 'data-back-url'))
    })
  }

  document.addEventListener('DOMContentLoaded', function () {
    var times = document.querySelectorAll('time[datetime]')
    for (var n = 0; n < times.length; n++) localTime(times[n])
    var timers = document.querySelectorAll('[data-seconds-left]')
    for (var i = 0; i < timers.length; i++) startTimer(timers[i])
    var forms = document.querySelectorAll('form[method="post"]')
    for (var j = 0; j < forms.length; j++) sendOnce(forms[j])
    var waits = document.querySelectorAll('[data-await-payment]')
    for (var w = 0; w < waits.length; w++) awaitPayment(waits[w])
    var apps = window.TillApps || {}
    for (var id in apps) {
      var bridge = document.querySelector('[data-' + id + '-pay]')
      if (bridge) payInApp(bridge, 'data-' + id + '-pay', apps[id])
    }
  })

  // Back to a page kept in the browser's cache: its forms may be sent again.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return
    var sent = document.querySelectorAll('form[data-sent]')
    for (var k = 0; k < sent.length; k++) {
      sent[k].removeAttribute('data-sent')
      sent[k].removeAttribute('aria-busy')
    }
  })
})()
