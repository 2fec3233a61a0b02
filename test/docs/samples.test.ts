/**
 * The reference's code samples (x-codeSamples, issue #27 §4) run against a real Till: every
 * operation's curl, Node, Python and Go sample, as the reference at /docs shows it, with its example
 * ids replaced by objects made for it. One process per language runs all of its samples (the Go ones
 * compiled into one program); each language works as its own merchant.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { CLIENT_NAMES } from '../../src/api/reference/clients.js'
import { EXAMPLE_IDS } from '../../src/api/reference/samples.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { ROOT } from '../helpers/process.js'

const run = promisify(execFile)
const TEST_DATA = process.env.TEST_DATA ?? path.join(ROOT, '.test-data')
const LANGS = ['curl', 'Node', 'Python', 'Go'] as const
type Lang = (typeof LANGS)[number]

interface Sample {
  name: string
  source: string
  /** The objects made for it, by the kind of example id they replace. */
  made: Partial<Record<keyof typeof EXAMPLE_IDS, string>>
}

test('the samples name the client libraries as their manifests do', () => {
  assert.equal(JSON.parse(readFileSync(path.join(ROOT, 'clients/js/package.json'), 'utf8')).name, CLIENT_NAMES.node)
  const pyproject = readFileSync(path.join(ROOT, 'clients/python/pyproject.toml'), 'utf8')
  assert.match(pyproject, new RegExp(`packages = \\["src/${CLIENT_NAMES.python}"\\]`))
  assert.match(readFileSync(path.join(ROOT, 'clients/go/go.mod'), 'utf8'), new RegExp(`^module ${CLIENT_NAMES.go}$`, 'm'))
})

/** Objects for one language's merchant, one set per sample, so no sample changes another's. */
function fixtures(ta: TestApp, key: string) {
  const post = async (p: string, body: unknown = {}) => {
    const res = await ta.request('POST', p, { key, body })
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  const paid = async (refundBehavior?: string) => {
    const s = await post('/api/v1/checkout', { amount: 9900, currency: 'CNY', metadata: { order_id: 'A-1042' } })
    return post(`/api/v1/test_helpers/sessions/${s.id}/pay`, refundBehavior ? { refundBehavior } : {})
  }
  const make: Record<keyof typeof EXAMPLE_IDS, () => Promise<string>> = {
    sess: async () => (await post('/api/v1/checkout', { amount: 9900, currency: 'CNY' })).id,
    // A record with one refund already, so listing its refunds shows one.
    rec: async () => {
      const record = (await paid()).record.id
      await post('/api/v1/refunds', { recordId: record, amount: 100 })
      return record
    },
    ref: async () => (await post('/api/v1/refunds', { recordId: (await paid('pending')).record.id, amount: 100 })).refund.id,
    we: async () => (await post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' })).id,
    plink: async () => (await post('/api/v1/payment_links', { amount: 100, currency: 'JPY' })).id,
    evt: async () => {
      await paid()
      return (await ta.request('GET', '/api/v1/events?limit=1&type=payment.succeeded', { key })).body.data[0].id
    },
  }
  return make
}

/** Runs a command, failing with its output when it fails. */
async function sh(file: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    return (await run(file, args, { cwd: o.cwd, env: { ...process.env, ...o.env }, maxBuffer: 16 << 20, timeout: 240_000 })).stdout
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${file} ${args.join(' ')}: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`)
  }
}

/** A Python with the client: the environment scripts/python-client.sh made, else one made here. */
async function python(): Promise<string> {
  for (const v of ['py3.13', 'py3.9']) {
    const bin = path.join(TEST_DATA, v, 'bin/python')
    if (existsSync(bin)) return bin
  }
  const venv = path.join(TEST_DATA, 'py-samples')
  const bin = path.join(venv, 'bin/python')
  if (!existsSync(bin)) {
    await sh('python3', ['-m', 'venv', venv])
    await sh(bin, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-e', path.join(ROOT, 'clients/python')])
  }
  return bin
}

const RUNNERS: Record<Lang, (dir: string, samples: Sample[], env: NodeJS.ProcessEnv) => Promise<string>> = {
  async curl(dir, samples, env) {
    // Failing answers fail the script: the samples themselves carry no such flags.
    const script = ['set -euo pipefail', 'curl() { command curl -sS --fail-with-body "$@"; }',
      ...samples.flatMap((s) => [`echo '--- ${s.name}'`, s.source, 'echo'])].join('\n')
    writeFileSync(path.join(dir, 'samples.sh'), script)
    return sh('bash', [path.join(dir, 'samples.sh')], { env })
  },
  async Node(dir, samples, env) {
    samples.forEach((s, i) => writeFileSync(path.join(dir, `sample${i}.mjs`), s.source))
    writeFileSync(path.join(dir, 'run.mjs'), `const names = ${JSON.stringify(samples.map((s) => s.name))}
for (const [i, name] of names.entries()) {
  console.log('--- ' + name)
  await import(new URL('./sample' + i + '.mjs', import.meta.url).href)
}
`)
    return sh(process.execPath, [path.join(dir, 'run.mjs')], { env })
  },
  async Python(dir, samples, env) {
    writeFileSync(path.join(dir, 'samples.json'), JSON.stringify(samples.map((s) => ({ name: s.name, source: s.source }))))
    writeFileSync(path.join(dir, 'run.py'), `import json, sys
for s in json.load(open(sys.argv[1], encoding="utf-8")):
    print("--- " + s["name"], flush=True)
    exec(compile(s["source"], s["name"], "exec"), {"__name__": "__main__"})
    sys.stdout.flush()
`)
    return sh(await python(), [path.join(dir, 'run.py'), path.join(dir, 'samples.json')], { env })
  },
  async Go(dir, samples, env) {
    writeFileSync(path.join(dir, 'go.mod'), `module tillsamples\n\ngo 1.21\n\nrequire ${CLIENT_NAMES.go} v0.0.0\n\nreplace ${CLIENT_NAMES.go} => ${path.join(ROOT, 'clients/go')}\n`)
    samples.forEach((s, i) => {
      assert.match(s.source, /^func main\(\) \{$/m, s.name)
      writeFileSync(path.join(dir, `sample${i}.go`), s.source.replace(/^func main\(\) \{$/m, `func sample${i}() {`))
    })
    writeFileSync(path.join(dir, 'main.go'), `package main\n\nimport "fmt"\n\nfunc main() {\n${samples.map((s, i) => `\tfmt.Println(${JSON.stringify(`--- ${s.name}`)})\n\tsample${i}()\n`).join('')}}\n`)
    const goEnv = { GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', GOPROXY: 'off' }
    await sh('go', ['build', '-o', 'samples', '.'], { cwd: dir, env: goEnv })
    return sh(path.join(dir, 'samples'), [], { env })
  },
}

test('every operation\'s curl, Node, Python and Go samples run against a real Till', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  const served = doc.servers[0].url as string
  const ops = Object.entries(doc.paths as Record<string, Record<string, { 'x-codeSamples'?: { label: string; source: string }[] }>>)
    .flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => ({ name: `${m.toUpperCase()} ${p}`, samples: op['x-codeSamples'] ?? [] })))
  assert.ok(ops.length >= 24)
  for (const op of ops) assert.deepEqual(op.samples.map((s) => s.label), [...LANGS], `${op.name} has a sample in each language`)

  const outputs = await Promise.all(LANGS.map(async (lang) => {
    const m = await ta.newMerchant(`Samples ${lang}`)
    // An endpoint to redeliver events to.
    await ta.request('POST', '/api/v1/webhook_endpoints', { key: m.testKey, body: { url: 'http://127.0.0.1:9/all' } })
    const make = fixtures(ta, m.testKey)
    const samples: Sample[] = []
    for (const op of ops) {
      let source = op.samples.find((s) => s.label === lang)!.source.replaceAll(served, ta.baseUrl)
      const made: Sample['made'] = {}
      for (const kind of Object.keys(EXAMPLE_IDS) as (keyof typeof EXAMPLE_IDS)[]) {
        if (!source.includes(EXAMPLE_IDS[kind])) continue
        made[kind] = await make[kind]()
        source = source.replaceAll(EXAMPLE_IDS[kind], made[kind]!)
      }
      samples.push({ name: op.name, source, made })
    }
    const dir = path.join(TEST_DATA, 'samples', `${lang.toLowerCase()}-${process.pid}`)
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const out = await RUNNERS[lang](dir, samples, { TILL_SECRET_KEY: m.testKey })
    return { lang, key: m.testKey, samples, out }
  }))

  for (const { lang, key, samples, out } of outputs) {
    // Each sample printed something of its own, in order.
    const sections = out.split(/^--- /m).slice(1)
    assert.deepEqual(sections.map((s) => s.split('\n')[0]), samples.map((s) => s.name), lang)
    for (const [i, section] of sections.entries()) {
      const printed = section.split('\n').slice(1).join('\n').trim()
      assert.ok(printed, `${lang} ${samples[i].name} printed its result`)
      if (lang === 'curl' && printed) assert.doesNotThrow(() => JSON.parse(printed), `${lang} ${samples[i].name}: ${printed.slice(0, 200)}`)
    }
    // And did what it says.
    const made = (name: string) => samples.find((s) => s.name === name)!.made
    const get = async (p: string) => ta.request('GET', p, { key })
    assert.equal((await get(`/api/v1/sessions/${made('POST /api/v1/test_helpers/sessions/{id}/pay').sess}`)).body.status, 'paid', lang)
    assert.equal((await get(`/api/v1/sessions/${made('POST /api/v1/sessions/{id}/cancel').sess}`)).body.status, 'canceled', lang)
    assert.equal((await get(`/api/v1/sessions/${made('POST /api/v1/sessions/{id}/expire').sess}`)).body.status, 'expired', lang)
    assert.equal((await get(`/api/v1/records/${made('POST /api/v1/refunds').rec}`)).body.refundedAmount, 100 + 2500, lang)
    assert.equal((await get(`/api/v1/webhook_endpoints/${made('DELETE /api/v1/webhook_endpoints/{id}').we}`)).status, 404, lang)
    assert.equal((await get(`/api/v1/refunds/${made('POST /api/v1/test_helpers/refunds/{id}/succeed').ref}`)).body.status, 'succeeded', lang)
    const endpoints = (await get('/api/v1/webhook_endpoints')).body.data
    assert.ok(endpoints.some((e: { url: string }) => e.url === 'https://shop.example/till/webhooks'), `${lang} created its endpoint`)
    const sessions = (await get('/api/v1/sessions?metadata[order_id]=A-1042&limit=100')).body.data
    assert.ok(sessions.some((s: { description: string | null }) => s.description === 'Order A-1042'), `${lang} created its session`)
  }
})
