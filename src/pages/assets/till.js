// Progressive enhancement only: every page works without this file.
// 1. The checkout countdown ticks, and when time is up the page reloads once to show "expired".
// 2. A form is sent once, however often its button is pressed.
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

  document.addEventListener('DOMContentLoaded', function () {
    var timers = document.querySelectorAll('[data-seconds-left]')
    for (var i = 0; i < timers.length; i++) startTimer(timers[i])
    var forms = document.querySelectorAll('form[method="post"]')
    for (var j = 0; j < forms.length; j++) sendOnce(forms[j])
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
