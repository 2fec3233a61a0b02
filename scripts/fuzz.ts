/**
 * The TypeScript half of scripts/fuzz.sh, against a running Till.
 *
 * `seed BASE ADMIN_TOKEN DIR`: makes a merchant (admin API) and real objects in every state
 * (sessions, records, refunds, endpoints, events), so generated requests reach the service's logic
 * instead of stopping at 404. Writes DIR/schemathesis.toml, which offers those ids for half of the
 * generated ids; prints the test key.
 *
 * `counts BASE MIN EVENTS.ndjson…`: the requests schemathesis sent to each documented operation;
 * fails when one that takes any input got fewer than MIN.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

async function call(base: string, token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

async function seed(base: string, adminToken: string, dir: string) {
  const merchant = await call(base, adminToken, 'POST', '/admin/v1/merchants', { name: 'Fuzz' })
  const key: string = merchant.keys.test
  const api = (method: string, url: string, body?: unknown) => call(base, key, method, `/api/v1${url}`, body)
  const session = () => api('POST', '/checkout', { amount: 10_000, currency: 'CNY', metadata: { seed: 'fuzz' } })

  const sessions: string[] = []
  const records: string[] = []
  const refunds: string[] = []
  for (let i = 0; i < 3; i++) sessions.push((await session()).id)
  for (const action of ['fail', 'cancel', 'expire']) {
    const s = await session()
    await api('POST', `/test_helpers/sessions/${s.id}/${action}`)
    sessions.push(s.id)
  }
  for (const refundBehavior of ['succeed', 'pending', 'pending', 'fail', 'succeed']) {
    const s = await session()
    const paid = await api('POST', `/test_helpers/sessions/${s.id}/pay`, { refundBehavior })
    sessions.push(s.id)
    records.push(paid.record.id)
  }
  // Settled, pending and failed refunds, on records that keep some amount refundable.
  for (const recordId of records.slice(0, 4)) refunds.push((await api('POST', '/refunds', { recordId, amount: 1000 })).refund.id)
  // Loopback URLs nothing serves: fuzz.sh runs Till with TILL_JOBS=0, so nothing is ever sent.
  const endpoints: string[] = []
  for (let i = 0; i < 3; i++) endpoints.push((await api('POST', '/webhook_endpoints', { url: `http://127.0.0.1:9/hooks/${i}` })).id)
  const events: string[] = (await api('GET', '/events?limit=100')).data.map((e: { id: string }) => e.id)
  // Payment links: fixed, a buyer's range, and one deactivated.
  const links: string[] = []
  for (const body of [{ amount: 9900, currency: 'CNY' }, { minAmount: 100, maxAmount: 50_000, currency: 'JPY' }, { amount: 500, currency: 'USD', active: false }]) {
    links.push((await api('POST', '/payment_links', body)).id)
  }

  const dictionary = (name: string, values: string[]) => `[dictionaries.${name}]\nvalues = ${JSON.stringify(values)}\n`
  const bind = (pathRegex: string, params: Record<string, string>) =>
    `[[operations]]\ninclude-path-regex = ${JSON.stringify(pathRegex)}\n` +
    `parameters = { ${Object.entries(params).map(([p, d]) => `${JSON.stringify(p)} = { dictionary = "${d}", probability = 0.5 }`).join(', ')} }\n`
  writeFileSync(path.join(dir, 'schemathesis.toml'), [
    '# Written by scripts/fuzz.ts for one run: ids of the objects it seeded.\n',
    // Ids captured from responses would be reused too, but schemathesis then winds DELETE down after
    // a few successes and it gets a fraction of its examples; the seeded ids already reach real objects.
    '[phases.fuzzing.extra-data-sources]\nresponses = false\n',
    dictionary('sessions', sessions),
    dictionary('records', records),
    dictionary('refunds', refunds),
    dictionary('endpoints', endpoints),
    dictionary('events', events),
    dictionary('links', links),
    bind('^/api/v1/(sessions|test_helpers/sessions)/', { 'path.id': 'sessions' }),
    bind('^/api/v1/test_helpers/refunds/', { 'path.id': 'refunds' }),
    bind('^/api/v1/refunds$', { 'body.recordId': 'records' }),
    bind('^/api/v1/webhook_endpoints/', { 'path.id': 'endpoints' }),
    bind('^/api/v1/events$', { 'query.starting_after': 'events' }),
    bind('^/api/v1/events/\\{id\\}$', { 'path.id': 'events' }),
    bind('^/api/v1/payment_links/\\{id\\}$', { 'path.id': 'links' }),
    bind('^/api/v1/payment_links$', { 'query.starting_after': 'links' }),
    bind('^/api/v1/events/\\{id\\}/redeliver$', { 'path.id': 'events', 'body.endpointId': 'endpoints' }),
  ].join('\n'))
  process.stdout.write(key)
}

/**
 * Requests per operation, as schemathesis recorded them (its NDJSON events: one scenario per
 * operation and phase, each with its interactions). An operation without any input (no parameter,
 * no body) has a single possible request, so the minimum cannot apply to it.
 */
async function counts(base: string, ndjsonFiles: string[], min: number) {
  const sent: Record<string, number> = {}
  for (const file of ndjsonFiles) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.startsWith('{"ScenarioFinished"')) continue
      const { recorder } = JSON.parse(line).ScenarioFinished
      // Stateful scenarios chain several operations under one label: not counted per operation.
      if (recorder?.interactions) sent[recorder.label] = (sent[recorder.label] ?? 0) + Object.keys(recorder.interactions).length
    }
  }
  const doc = await (await fetch(`${base}/api/v1/openapi.json`)).json()
  let short = 0
  let total = 0
  console.log('requests per operation (examples, coverage and fuzzing phases):')
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const label = `${method.toUpperCase()} ${p}`
      const n = sent[label] ?? 0
      const noInput = !op.parameters?.length && !op.requestBody
      const below = n < min && !noInput
      if (below) short++
      total += n
      console.log(`  ${String(n).padStart(7)}  ${label}${noInput ? '   (no inputs: one request is all there is)' : below ? `   < ${min}` : ''}`)
    }
  }
  console.log(`  ${String(total).padStart(7)}  in all`)
  if (short) {
    console.error(`${short} operation(s) got fewer than ${min} requests`)
    process.exit(1)
  }
}

const [cmd, ...args] = process.argv.slice(2)
if (cmd === 'seed' && args.length === 3) await seed(args[0], args[1], args[2])
else if (cmd === 'counts' && args.length >= 3) await counts(args[0], args.slice(2), Number(args[1]))
else {
  console.error('usage: fuzz.ts seed BASE ADMIN_TOKEN DIR | counts BASE MIN EVENTS.ndjson…')
  process.exit(2)
}
