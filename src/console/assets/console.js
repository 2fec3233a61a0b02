// The console works without this file. It adds: copy buttons beside secrets shown once, a
// confirmation before forms marked data-confirm (the no-script path has its own confirmation pages),
// and the browser's time zone in a cookie, so the server writes times in it (UTC without it).
'use strict'
try {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (zone && document.cookie.indexOf('till_tz=' + zone) < 0) {
    document.cookie = 'till_tz=' + zone + '; Path=/console; Max-Age=31536000; SameSite=Lax'
  }
} catch (e) {
  // No Intl time zones: times stay in UTC, written as such.
}
document.querySelectorAll('[data-copy]').forEach(function (button) {
  var source = document.getElementById(button.getAttribute('data-copy'))
  if (!source || !navigator.clipboard) return
  button.hidden = false
  var label = button.textContent
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      button.textContent = '✓ ' + label
      setTimeout(function () { button.textContent = label }, 2000)
    })
  })
})
document.querySelectorAll('form[data-confirm]').forEach(function (form) {
  form.addEventListener('submit', function (e) {
    if (!window.confirm(form.getAttribute('data-confirm'))) e.preventDefault()
  })
})
// A form sent once stays sent: a second click while the first is on its way does nothing
// (the server refunds once in any case, by the idempotency key the form carries).
document.querySelectorAll('form[method="post"]').forEach(function (form) {
  form.addEventListener('submit', function (e) {
    if (e.defaultPrevented) return
    if (form.dataset.sent) { e.preventDefault(); return }
    form.dataset.sent = '1'
  })
})
