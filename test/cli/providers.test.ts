/**
 * `till providers` against a real Till: credentials from a file or stdin (never echoed), the list,
 * enable/disable/default/update, and what Till and the CLI refuse.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test, type TestContext } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'

function tempFile(t: TestContext, name: string, content: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-cli-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, name)
  writeFileSync(file, content, { mode: 0o600 })
  return file
}

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ'

test('providers add (wechat from a file, creem from stdin), list, disable, enable, default, update', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const m = ['--merchant', ta.merchant.id]
  const wechat = wechatCredentials()
  const file = tempFile(t, 'wechat.json', JSON.stringify(wechat, null, 2))

  const added = await till(['providers', 'add', ...m, '--provider', 'wechat', '--label', 'main', '--credentials-file', file,
    '--settings', '{"apiBase":"http://127.0.0.1:8091"}', '--json'], { env })
  assert.equal(added.code, 0, added.stderr)
  const main = JSON.parse(added.stdout)
  assert.deepEqual(Object.keys(main).sort(), ['createdAt', 'enabled', 'id', 'isDefault', 'label', 'provider', 'settings', 'updatedAt'])
  assert.match(main.id, /^pc_\w{24}$/)
  assert.equal(main.isDefault, true, 'the first configuration of a provider is its default')
  assert.equal(main.enabled, true)
  assert.deepEqual(main.settings, { apiBase: 'http://127.0.0.1:8091' })

  const second = await till(['providers', 'add', ...m, '--provider', 'wechat', '--label', 'shop-2', '--credentials-file', file, '--default', '--disabled'], { env })
  assert.equal(second.code, 0, second.stderr)
  const secondId = /^Added wechat\/shop-2 \((pc_\w{24})\): disabled, default\.\n$/.exec(second.stdout)?.[1]
  assert.ok(secondId, second.stdout)

  const creem = await till(['providers', 'add', ...m, '--provider', 'creem', '--label', 'eu', '--credentials-file', '-'], { env, input: JSON.stringify(creemCredentials()) })
  assert.equal(creem.code, 0, creem.stderr)
  assert.match(creem.stdout, /^Added creem\/eu \(pc_\w{24}\): enabled, default\.\n$/)

  const list = await till(['providers', 'list', ...m], { env })
  assert.equal(list.code, 0, list.stderr)
  const lines = list.stdout.trimEnd().split('\n')
  assert.equal(lines[0], 'ID                           PROVIDER  LABEL   ENABLED  DEFAULT  UPDATED               SETTINGS')
  assert.match(lines[1], new RegExp(`^${main.id}  wechat    main    yes      no       ${TIME}  \\{"apiBase":"http://127\\.0\\.0\\.1:8091"\\}$`))
  assert.match(lines[2], new RegExp(`^${secondId}  wechat    shop-2  no       yes      ${TIME}  -$`))
  assert.match(lines[3], new RegExp(`^pc_\\w{24}  creem     eu      yes      yes      ${TIME}  -$`))
  assert.equal(lines.length, 4)
  for (const out of [added.stdout, second.stdout, creem.stdout, list.stdout]) {
    for (const secret of [wechat.apiV3Key, wechat.privateKey.split('\n')[1], creemCredentials().apiKey]) assert.equal(out.includes(secret), false)
  }

  const enabled = await till(['providers', 'enable', ...m, secondId], { env })
  assert.equal(enabled.code, 0, enabled.stderr)
  assert.equal(enabled.stdout, `wechat/shop-2 (${secondId}): enabled, default\n`)
  const disabled = await till(['providers', 'disable', ...m, main.id], { env })
  assert.equal(disabled.stdout, `wechat/main (${main.id}): disabled\n`)
  const madeDefault = await till(['providers', 'default', ...m, main.id, '--json'], { env })
  assert.equal(madeDefault.code, 0, madeDefault.stderr)
  assert.equal(JSON.parse(madeDefault.stdout).isDefault, true)
  const updated = await till(['providers', 'update', ...m, secondId, '--label', 'backup', '--credentials-file', '-'], { env, input: JSON.stringify(wechatCredentials()) })
  assert.equal(updated.code, 0, updated.stderr)
  assert.equal(updated.stdout, `Updated wechat/backup (${secondId}): enabled.\n`)

  const json = await till(['providers', 'list', ...m, '--json'], { env })
  const byId = Object.fromEntries(JSON.parse(json.stdout).data.map((c: { id: string }) => [c.id, c]))
  assert.deepEqual([byId[main.id].enabled, byId[main.id].isDefault], [false, true])
  assert.deepEqual([byId[secondId].label, byId[secondId].enabled, byId[secondId].isDefault], ['backup', true, false], 'a new default takes over')
})

test('credentials problems: the CLI refuses unreadable or non-JSON input without echoing it; Till refuses bad credentials', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const add = ['providers', 'add', '--merchant', ta.merchant.id, '--provider', 'wechat', '--label', 'main', '--credentials-file']

  const notJson = await till([...add, tempFile(t, 'c.json', 'apiV3Key=supersecret')], { env })
  assert.equal(notJson.code, 2)
  assert.match(notJson.stderr, /^till providers add: --credentials-file: \/.*\/c\.json is not valid JSON\n/)
  assert.doesNotMatch(notJson.stderr, /supersecret/)

  const array = await till([...add, '-'], { env, input: '["supersecret"]' })
  assert.equal(array.code, 2)
  assert.match(array.stderr, /^till providers add: --credentials-file: the credentials must be one JSON object\n/)

  const missing = await till([...add, '/nonexistent/creds.json'], { env })
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /^till providers add: --credentials-file: cannot read \/nonexistent\/creds\.json: ENOENT\n/)

  const badSettings = await till([...add, '-', '--settings', 'apiBase=x'], { env, input: '{}' })
  assert.equal(badSettings.code, 2)
  assert.match(badSettings.stderr, /^till providers add: --settings must be a JSON object such as/)

  const refused = await till([...add, '-'], { env, input: JSON.stringify({ ...wechatCredentials(), apiV3Key: 'short' }) })
  assert.equal(refused.code, 1)
  assert.equal(refused.stderr, 'error: credentials.apiV3Key: must be 32 characters (HTTP 400)\n')

  const unknown = await till(['providers', 'add', '--merchant', ta.merchant.id, '--provider', 'paypal', '--label', 'x', '--credentials-file', '-'], { env, input: '{}' })
  assert.equal(unknown.code, 1)
  assert.equal(unknown.stderr, 'error: provider: must be one of wechat, creem, alipay, stripe (HTTP 400)\n')

  const noConfig = await till(['providers', 'enable', '--merchant', ta.merchant.id, 'pc_000000000000000000000000'], { env })
  assert.equal(noConfig.code, 1)
  assert.match(noConfig.stderr, /^error: Not found \(HTTP 404\)\n/)

  const empty = await till(['providers', 'list', '--merchant', ta.merchant.id], { env })
  assert.equal(empty.stdout, 'No provider configurations.\n')
})
