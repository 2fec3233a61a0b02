/**
 * Reconciliation in the console over HTTP: the days with their counts, a day's mismatches with both
 * sides (provider text escaped), re-check, acknowledge with a note (CSRF-checked, in the activity
 * log), the CSV export, the other mode's and merchant's 404.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cell } from '../../src/console/reconciliation/csv.js'
import { deliverDue } from '../../src/jobs/outbox.js'
import { ConsoleBrowser, signedIn } from '../helpers/console.js'
import { startReceiver } from '../helpers/receiver.js'
import { lineOf, reconTill, unknownLine, type ReconTill } from '../helpers/reconciliation.js'

const DAY = '2026-05-20'
const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00.000+08:00`)

/** The merchant of the reconciliation app signs in to the console. */
async function console(r: ReconTill) {
  const email = 'ops@shop.example'
  const password = 'correct horse battery'
  const set = await r.ta.admin('POST', `/merchants/${r.ta.merchant.id}/password`, { password, email })
  assert.equal(set.status, 200, JSON.stringify(set.body))
  const browser = new ConsoleBrowser(r.ta)
  assert.equal((await browser.signIn(email, password)).status, 303)
  return browser
}

async function reconciledDay(r: ReconTill) {
  const ok = await r.payment({ paidAt: at('10:00') })
  const cheaper = await r.payment({ paidAt: at('11:00') })
  const stranger = unknownLine({ at: at('12:00') })
  r.stub.set(DAY, { lines: [lineOf(ok), lineOf(cheaper, { amount: 9800 }), stranger] })
  r.ta.clock.set(new Date('2026-05-21T02:30:00.000Z'))
  const res = await r.ta.admin('POST', '/reconciliation/runs', { date: DAY, providerConfigId: r.configId })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return { report: res.body.data[0], ok, cheaper, stranger }
}

const itemIds = (html: string) => [...html.matchAll(/data-item="(rci_\w+)"/g)].map((m) => m[1])

test('the days list and a day: counts per category, each mismatch with both sides, the provider\'s text escaped', async (t) => {
  const r = await reconTill(t)
  const { report, cheaper, stranger } = await reconciledDay(r)
  const browser = await console(r)

  const list = await browser.get('/console/live/reconciliation')
  assert.equal(list.status, 200)
  assert.match(list.html, new RegExp(`data-report="${report.id}"`))
  assert.match(list.html, /2 open of 2/)
  assert.match(list.html, /aria-current="page"[^>]*>Reconciliation</)

  const day = await browser.get(`/console/live/reconciliation/${report.id}`)
  assert.equal(day.status, 200)
  assert.equal(itemIds(day.html).length, 2, 'the mismatches, not the matched payment')
  assert.match(day.html, /data-count="matched"[^]*?<\/a> 1</)
  assert.match(day.html, /data-category="amount_differs"/)
  assert.match(day.html, /Amount: ¥99\.00\sCNY at Till, ¥98\.00\sCNY on the statement/)
  assert.match(day.html, new RegExp(cheaper.recordId), 'Till\'s side')
  assert.match(day.html, new RegExp(stranger.tillRef!), 'the statement\'s side')
  // The provider's own fields are shown as text, never as markup.
  assert.ok(day.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), 'escaped')
  assert.ok(!day.html.includes('<script>alert'), 'never raw')
  assert.ok(day.html.includes('Blue mug &lt;b&gt;&amp;amp;&lt;/b&gt;'))
  // Totals: the statement's summary, its lines and Till.
  assert.match(day.html, /data-totals="CNY"/)

  const zh = await browser.get(`/console/live/reconciliation/${report.id}?lang=zh-CN`)
  assert.match(zh.html, /金额不符/)
  assert.match(zh.html, /Till 缺失/)
  const matched = await browser.get(`/console/live/reconciliation/${report.id}?category=matched&lang=en`)
  assert.equal(itemIds(matched.html).length, 1)

  // Test mode has no statements; another merchant and the other mode do not see the day.
  assert.match((await browser.get('/console/test/reconciliation')).html, /Test mode&#39;s simulated provider keeps no statement/)
  assert.equal((await browser.get(`/console/test/reconciliation/${report.id}`)).status, 404)
  const other = await signedIn(r.ta, { name: 'Other' })
  assert.equal((await other.browser.get(`/console/live/reconciliation/${report.id}`)).status, 404)
  assert.doesNotMatch((await other.browser.get('/console/live/reconciliation')).html, new RegExp(report.id))
})

test('acknowledge with a note: recorded in the activity log, kept on the item; without the CSRF token or a note nothing changes', async (t) => {
  const r = await reconTill(t)
  const { report } = await reconciledDay(r)
  const browser = await console(r)
  const page = `/console/live/reconciliation/${report.id}`
  const [first] = itemIds((await browser.get(page)).html)
  const action = `${page}/items/${first}/acknowledge`

  const forged = await browser.post(action, { note: 'no token' })
  assert.equal(forged.status, 403)
  const noNote = await browser.submit(page, action, { note: '  ' })
  assert.equal(noNote.status, 400)
  assert.match(noNote.html, /Write a note/)
  assert.equal((await r.q('select count(*)::int as n from reconciliation_items where acknowledged_at is not null', [])).rows[0].n, 0)

  const done = await browser.submit(page, action, { note: 'refunded by bank transfer <b>' })
  assert.equal(done.status, 303)
  assert.equal(done.location, `${page}?notice=acknowledged`)
  const again = await browser.submit(page, action, { note: 'twice' })
  assert.equal(again.status, 303, 'a second post of the form changes nothing')
  const { rows } = await r.q('select acknowledged_by, acknowledgement_note from reconciliation_items where id = $1', [first])
  assert.deepEqual(rows[0], { acknowledged_by: 'ops@shop.example', acknowledgement_note: 'refunded by bank transfer <b>' })
  const after = await browser.get(`${page}?notice=acknowledged`)
  assert.match(after.html, /Mismatch acknowledged/)
  assert.match(after.html, /1 open of 2/)
  assert.ok(after.html.includes('refunded by bank transfer &lt;b&gt;'))

  const activity = await r.q(`select actor, action, subject, detail, mode from console_activity where action = 'mismatch_acknowledged'`, [])
  assert.equal(activity.rows.length, 1, 'once, however often the form was posted')
  assert.deepEqual([activity.rows[0].actor, activity.rows[0].subject, activity.rows[0].mode, activity.rows[0].detail.note], ['ops@shop.example', first, 'live', 'refunded by bank transfer <b>'])
  assert.match((await browser.get('/console/live/activity')).html, /data-action="mismatch_acknowledged"[^]*?Acknowledged a reconciliation mismatch/)
})

test('re-check runs the day again from its kept files and says so; it is in the activity log', async (t) => {
  const r = await reconTill(t)
  const { report, cheaper } = await reconciledDay(r)
  const browser = await console(r)
  const page = `/console/live/reconciliation/${report.id}`
  // Till's record corrected since: the re-check finds the payment matched.
  await r.q('update records set amount = 9800 where id = $1', [cheaper.recordId])
  const res = await browser.submit(page, `${page}/recheck`)
  assert.equal(res.status, 303)
  assert.equal(res.location, `${page}?notice=rechecked`)
  const after = await browser.get(res.location!)
  assert.match(after.html, /The day was reconciled again/)
  assert.equal(itemIds(after.html).length, 1)
  assert.equal(r.stub.fetches.length, 1, 'parsed again from the kept files')
  const { rows } = await r.q(`select subject, detail from console_activity where action = 'reconciliation_rechecked'`, [])
  assert.deepEqual(rows.map((x) => [x.subject, x.detail.date]), [[report.id, DAY]])
})

test('CSV export: every item of the day with both sides, amounts in minor units, formulas defused', async (t) => {
  const r = await reconTill(t)
  const { report, ok, cheaper } = await reconciledDay(r)
  const browser = await console(r)
  const res = await browser.get(`/console/live/reconciliation/${report.id}/export.csv`)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8')
  assert.match(res.headers.get('content-disposition')!, new RegExp(`^attachment; filename="reconciliation-${DAY}-wechat-${r.configId}.csv"$`))
  const [head, ...rows] = res.html.replace(/^\ufeff/, '').trimEnd().split('\r\n')
  const cols = head.split(',')
  assert.deepEqual(cols.slice(0, 6), ['date', 'provider', 'provider_config_id', 'item_id', 'kind', 'category'])
  assert.equal(rows.length, 3)
  const byTill = new Map(rows.map((line) => {
    const cells = line.split(',')
    return [cells[cols.indexOf('till_id')], Object.fromEntries(cols.map((c, i) => [c, cells[i]]))]
  }))
  assert.equal(byTill.get(ok.recordId)!.category, 'matched')
  assert.deepEqual([byTill.get(cheaper.recordId)!.till_amount, byTill.get(cheaper.recordId)!.statement_amount, byTill.get(cheaper.recordId)!.category], ['9900', '9800', 'amount_differs'])
  assert.equal(byTill.get('')!.category, 'missing_in_till')

  assert.equal(cell('=HYPERLINK("x")'), '"\'=HYPERLINK(""x"")"')
  assert.equal(cell('-1+1'), '\'-1+1')
  assert.equal(cell(-5), '-5', 'a number is a number')
  assert.equal(cell('a,b'), '"a,b"')
  assert.equal((await new ConsoleBrowser(r.ta).get(`/console/live/reconciliation/${report.id}/export.csv`)).status, 303, 'signed in only')
})

test('the statement\'s kept files: listed on the day with their size, each downloaded as the provider sent it', async (t) => {
  const r = await reconTill(t)
  const { report } = await reconciledDay(r)
  const browser = await console(r)
  const { rows: [kept] } = await r.q(`select f.size, convert_from(string_agg(c.data, ''::bytea order by c.seq), 'UTF8') as text
    from statement_files f join statement_file_chunks c using (statement_id, name) where f.statement_id = $1 and f.name = 'tradebill' group by f.size`, [report.id])
  const day = await browser.get(`/console/live/reconciliation/${report.id}`)
  const link = `/console/live/reconciliation/${report.id}/files/tradebill`
  assert.match(day.html, new RegExp(`<a href="${link}" download="">tradebill</a> \\(${kept.size.toLocaleString('en')} bytes\\)`))
  const res = await browser.get(link)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'application/x-ndjson')
  assert.equal(res.headers.get('content-disposition'), `attachment; filename="statement-${DAY}-wechat-tradebill"`)
  assert.equal(res.html, kept.text)
  assert.equal(JSON.parse(res.html.split('\n')[0]).kind, 'payment', 'the file as the provider sent it')
  assert.equal((await browser.get(`/console/live/reconciliation/${report.id}/files/fundflowbill`)).status, 404)
  assert.equal((await browser.get(`/console/test/reconciliation/${report.id}/files/tradebill`)).status, 404, 'the other mode')
  assert.equal((await new ConsoleBrowser(r.ta).get(link)).status, 303, 'signed in only')
})

test('Send test event of reconciliation.mismatches_found sends a report\'s sample data, naming no session', async (t) => {
  const r = await reconTill(t)
  const browser = await console(r)
  const rx = await startReceiver(t)
  const created = await browser.submit('/console/test/webhooks', '/console/test/webhooks', { url: rx.url })
  const id = /\/console\/test\/webhooks\/(we_\w+)\/test/.exec(created.html)![1]
  const sent = await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/test`, { type: 'reconciliation.mismatches_found' })
  assert.equal(sent.status, 303)
  await deliverDue(r.ta.deps)
  const [got] = rx.requests
  assert.equal(got.json.type, 'reconciliation.mismatches_found')
  assert.match(got.json.data.reportId, /^stm_/)
  assert.deepEqual(Object.keys(got.json.data).sort(), ['counts', 'date', 'newMismatches', 'openMismatches', 'provider', 'providerConfigId', 'reportId', 'totalsDiffer'])
})
