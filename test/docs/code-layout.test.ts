/**
 * The shape docs/architecture.md describes (issue #24 §2, §6): the customer pages and the console
 * share src/web/ and never import each other, both follow one folder layout, and the CLI reaches
 * the Node client by its package name, not by a path into clients/js.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { ROOT } from '../helpers/process.js'

const SRC = path.join(ROOT, 'src')
const sourceFiles = (dir: string): string[] => readdirSync(path.join(SRC, dir), { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.test.ts'))
  .map((f) => path.join(dir, f))

/** Every module specifier a file imports or re-exports, static or dynamic. */
const specifiers = (file: string) =>
  [...readFileSync(path.join(SRC, file), 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1])

/** `file`'s imports that land in src/<folder> (or anywhere outside src/ for '..'). */
function importsInto(file: string, folder: string): string[] {
  return specifiers(file).filter((s) => {
    if (!s.startsWith('.')) return false
    const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), s))
    return folder === '..' ? target.startsWith('..') : target === folder || target.startsWith(folder + path.sep)
  })
}

test('the pages and the console import each other in no file (what both need is in src/web)', () => {
  const crossings = [
    ...sourceFiles('pages').flatMap((f) => importsInto(f, 'console').map((s) => `${f} imports ${s}`)),
    ...sourceFiles('console').flatMap((f) => importsInto(f, 'pages').map((s) => `${f} imports ${s}`)),
  ]
  assert.deepEqual(crossings, [])
})

test('src/web depends on neither the pages nor the console', () => {
  const up = sourceFiles('web').flatMap((f) => [...importsInto(f, 'pages'), ...importsInto(f, 'console')].map((s) => `${f} imports ${s}`))
  assert.deepEqual(up, [])
})

test('the pages and the console follow one folder layout', () => {
  // The scope, the request's context, the assets, the catalogues and the frame: each in the same place.
  const shared = ['plugin.ts', 'context.ts', 'assets.ts', 'assets', 'i18n/index.ts', 'i18n/en.ts', 'i18n/zh-CN.ts', 'views/layout.tsx', 'views/message.tsx']
  for (const side of ['pages', 'console']) {
    const missing = shared.filter((f) => !existsSync(path.join(SRC, side, f)))
    assert.deepEqual(missing, [], `src/${side} lacks ${missing.join(', ')}`)
    // A screen is a folder with its route.ts, and its view beside it: views/ holds only shared parts.
    const screens = readdirSync(path.join(SRC, side)).filter((d) => existsSync(path.join(SRC, side, d, 'route.ts')))
    const screenViewsInViews = readdirSync(path.join(SRC, side, 'views')).filter((f) => screens.includes(f.replace(/\.tsx$/, '')))
    assert.deepEqual(screenViewsInViews, [], `src/${side}/views holds screens' views; they belong in <screen>/view.tsx`)
    // Routes are declared in a screen's folder; at the top only the scope (plugin.ts) registers any.
    const topRoutes = readdirSync(path.join(SRC, side)).filter((f) => /\.tsx?$/.test(f) && f !== 'plugin.ts')
      .filter((f) => /\.(get|post|put|patch|delete)\s*[<(]/.test(readFileSync(path.join(SRC, side, f), 'utf8')))
    assert.deepEqual(topRoutes, [], `src/${side}: routes outside a screen folder`)
  }
})

test('src/ reaches the Node client by its package name (@till-payments/node), not by a path into clients/', () => {
  const byPath = sourceFiles('.').flatMap((f) => importsInto(f, '..').map((s) => `${f} imports ${s}`))
  assert.deepEqual(byPath, [])
})

test('src/services imports nothing from src/api (the HTTP layer calls the services, not the other way)', () => {
  const up = sourceFiles('services').flatMap((f) => importsInto(f, 'api').map((s) => `${f} imports ${s}`))
  assert.deepEqual(up, [])
})

/** The src/ file a relative specifier names (`./x.js` is x.ts or x.tsx), or null outside src/. */
function resolved(from: string, spec: string): string | null {
  const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, from)), spec))
  if (target.startsWith('..')) return null
  const bare = target.replace(/\.js$/, '')
  return [`${bare}.ts`, `${bare}.tsx`, path.join(target, 'index.ts')].find((f) => existsSync(path.join(SRC, f))) ?? null
}

/** Every chain of imports from `starts` that lands in a file `target` accepts (walking through the rest). */
function chainsInto(starts: string[], target: (file: string) => boolean): string[] {
  const seen = new Map<string, string[]>(starts.map((f) => [f, [f]]))
  const queue = [...starts]
  const reached: string[] = []
  for (let f = queue.shift(); f; f = queue.shift()) {
    for (const spec of specifiers(f).filter((s) => s.startsWith('.'))) {
      const next = resolved(f, spec)
      if (!next || seen.has(next)) continue
      const chain = [...seen.get(f)!, next]
      seen.set(next, chain)
      if (target(next)) reached.push(chain.join(' → '))
      else queue.push(next)
    }
  }
  return reached
}

test('src/services reaches src/api through no other module either (a ground-floor helper, a provider, a repository)', () => {
  assert.deepEqual(chainsInto(sourceFiles('services'), (f) => f.startsWith('api' + path.sep)), [])
})

test('providers: src/providers/types.ts does not import the list (index.ts), directly or through another module', () => {
  const list = path.join('providers', 'index.ts')
  assert.deepEqual(chainsInto([path.join('providers', 'types.ts')], (f) => f === list), [])
})

test('providers: one front door: only src/providers/index.ts looks a module up by id, and an adapter carries no capabilities', () => {
  const list = path.join('providers', 'index.ts')
  const doors = sourceFiles('.').filter((f) => f !== list).filter((f) => {
    const text = readFileSync(path.join(SRC, f), 'utf8')
    return /export\s*(?:const|function)\s+(?:isLiveProvider|moduleOf)\b|export\s*\{[^}]*\b(?:isLiveProvider|moduleOf)\b|PROVIDERS\.find\(|Object\.fromEntries\(PROVIDERS/.test(text)
  })
  assert.deepEqual(doors, [], 'a second lookup of the providers\' modules')
  const adapter = /export interface PaymentProvider \{([\s\S]*?)\n\}/.exec(readFileSync(path.join(SRC, 'providers', 'types.ts'), 'utf8'))
  assert.ok(adapter, 'types.ts declares PaymentProvider')
  assert.doesNotMatch(adapter[1], /\bcapabilities\b/, 'capabilities are the module\'s (module.ts), not the adapter\'s too')
})

test('src/metrics and src/services do not import each other in a circle (metrics may read services, never back)', () => {
  const services = sourceFiles('services').flatMap((f) => importsInto(f, 'metrics').map((s) => `${f} imports ${s}`))
  const metrics = sourceFiles('metrics').flatMap((f) => importsInto(f, 'services').map((s) => `${f} imports ${s}`))
  assert.ok(!services.length || !metrics.length, `a circle:\n${[...services, ...metrics].join('\n')}`)
})

test('an Idempotency-Key\'s life is one module: only src/services/idempotency.ts and the repositories reach its rows', () => {
  const others = sourceFiles('.').filter((f) => f !== path.join('services', 'idempotency.ts') && !f.startsWith(path.join('store', 'repos') + path.sep))
    .flatMap((f) => importsInto(f, path.join('store', 'repos', 'idempotency.js')).map((s) => `${f} imports ${s}`))
  assert.deepEqual(others, [])
})

test('the console reads and writes through src/services, never src/store directly', () => {
  const direct = sourceFiles('console').flatMap((f) => importsInto(f, 'store').map((s) => `${f} imports ${s}`))
  assert.deepEqual(direct, [])
})

test('providers: the test mode\'s provider is a module too: no file outside src/providers names it by a literal', () => {
  const named = sourceFiles('.').filter((f) => !f.startsWith('providers' + path.sep))
    .filter((f) => /(["'`])mock\1/.test(readFileSync(path.join(SRC, f), 'utf8')))
  assert.deepEqual(named, [], 'what the literal decides is the module\'s (src/providers/mock/module.ts, TEST_PROVIDER in index.ts)')
})

/** Each exported function of a repository: its name and its parameters' text (balanced parentheses). */
function repoFunctions(file: string): { name: string; params: string }[] {
  const text = readFileSync(path.join(SRC, file), 'utf8')
  return [...text.matchAll(/export\s+(?:async\s+)?(?:function\*?\s+(\w+)\s*(?:<[^>]*>)?\s*\(|const\s+(\w+)\s*=\s*(?:async\s*)?\()/g)].map((m) => {
    let depth = 1
    let i = m.index + m[0].length
    for (; i < text.length && depth > 0; i++) depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0
    return { name: m[1] ?? m[2], params: text.slice(m.index + m[0].length, i - 1) }
  })
}

test('repositories: a read of a merchant\'s row takes its scope, required; a read across merchants says so in its name (…Unscoped)', () => {
  const repos = sourceFiles(path.join('store', 'repos'))
  const wrong = repos.flatMap((f) => repoFunctions(f).map((fn) => ({ f, ...fn }))).filter(({ name }) => !name.endsWith('Unscoped')).flatMap(({ f, name, params }) => {
    // An optional scope, merchant or mode: a read that is sometimes unscoped, which its name does not say.
    if (/\b(?:scope|merchantId|mode)\?\s*:/.test(params)) return [`${f}: ${name} takes its scope as optional`]
    // One row by id: the merchant's (its Scope; a merchant's row of no mode, its merchantId), or …Unscoped.
    // The merchants table's own row is the exception: its id is the merchant's.
    const byId = /^(?:get|lock)[A-Z]/.test(name) && name !== 'getMerchant'
    if (byId && !/\bscope: Scope\b|\bmerchantId: string\b/.test(params)) return [`${f}: ${name} reads a row without its scope`]
    return []
  })
  assert.deepEqual(wrong, [])
  // The same, one step removed: a filter type with an optional merchant or mode is taken by …Unscoped reads only.
  const optionalScope = repos.flatMap((f) => [...readFileSync(path.join(SRC, f), 'utf8')
    .matchAll(/export\s+(?:interface\s+(\w+)(?:<[^>]*>)?\s*\{([^}]*)\}|type\s+(\w+)(?:<[^>]*>)?\s*=([^\n]*))/g)]
    .filter((m) => /\b(?:merchantId|mode)\?\s*:/.test(m[2] ?? m[4])).map((m) => m[1] ?? m[3]))
  assert.ok(optionalScope.includes('OperatorFilter'), 'the check finds the operator\'s filter type')
  const takers = repos.flatMap((f) => repoFunctions(f).filter(({ name, params }) => !name.endsWith('Unscoped')
    && optionalScope.some((t) => new RegExp(`\\b${t}\\b`).test(params))).map(({ name }) => `${f}: ${name} takes a filter whose scope is optional`))
  assert.deepEqual(takers, [])
  // A repository is named for the rows it holds, not for the layer that calls it.
  const byCaller = repos.filter((f) => ['console', 'pages', 'api', 'admin', 'jobs', 'services'].includes(path.basename(f, '.ts')))
  assert.deepEqual(byCaller, [])
})

test('src/services: no two files declare the same name (one loadSession: a name says which resource it is about)', () => {
  const declared = new Map<string, string[]>()
  for (const f of sourceFiles('services')) {
    for (const m of readFileSync(path.join(SRC, f), 'utf8').matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|class|interface|type)\s+(\w+)/gm)) {
      declared.set(m[1], [...(declared.get(m[1]) ?? []), f])
    }
  }
  assert.deepEqual([...declared].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.join(', ')}`), [])
})
