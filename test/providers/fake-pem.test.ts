/**
 * `till fake wechat` and `till fake alipay` as a person reads them (no --json): every key printed as
 * its PEM block, ready to paste into the console, and written to a .pem file to upload.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'

/** Runs the fake until it has printed its whole banner (the Inspect line), then stops it. */
async function banner(provider: string, state: string): Promise<string> {
  const child = spawn(process.execPath, ['bin/till.mjs', 'fake', provider, '--port', '0', '--state', state], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d))
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d
      if (out.includes('Inspect:')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`till fake ${provider} exited ${code}: ${err}`)))
  })
  child.kill('SIGTERM')
  await exited
  return out
}

for (const [provider, keys] of [['wechat', ['privateKey']], ['alipay', ['privateKey', 'alipayPublicKey']]] as const) {
  test(`till fake ${provider} prints its keys as PEM blocks and writes them to .pem files`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), `till-fake-pem-${provider}-`))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const state = path.join(dir, 'state.json')
    const out = await banner(provider, state)
    for (const name of keys) {
      const file = path.join(dir, `fake-${provider}-${name}.pem`)
      const pem = readFileSync(file, 'utf8')
      assert.match(pem, /^-----BEGIN [A-Z ]+-----\n[A-Za-z0-9+/=\n]+-----END [A-Z ]+-----\n$/, name)
      assert.ok(out.includes(`  ${name} (also in ${file}):\n${pem}`), `${name} printed as its block:\n${out}`)
    }
  })
}
