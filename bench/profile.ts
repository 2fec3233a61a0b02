/**
 * Reads a V8 .cpuprofile (from BENCH_PROFILE=DIR, i.e. node --cpu-prof) and prints where the time
 * went: self time per function and per package, and inclusive time of chosen frames.
 * Usage: npx tsx bench/profile.ts FILE.cpuprofile [top=30]
 */
import { readFileSync } from 'node:fs'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount: number
  children?: number[]
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

export function summarize(file: string, top = 30): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)))
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const where = (n: Node) => {
    const url = n.callFrame.url.replace(/^file:\/\//, '')
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.includes('/src/') ? 'till:' + url.split('/src/')[1] : url.startsWith('node:') ? url : url ? 'other' : '(native)')
    return pkg
  }
  const fn = new Map<string, number>()
  const pkg = new Map<string, number>()
  for (const [id, t] of self) {
    const n = byId.get(id)!
    const name = `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`
    fn.set(name, (fn.get(name) ?? 0) + t)
    const k = where(n).startsWith('till:') ? 'till' : where(n)
    pkg.set(k, (pkg.get(k) ?? 0) + t)
  }
  const pctOf = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1])
  const out = [`${file}: ${(total / 1e6).toFixed(1)} s sampled`, '', 'self time by package:']
  for (const [k, t] of sorted(pkg).slice(0, 20)) out.push(`  ${pctOf(t)}  ${k}`)
  out.push('', 'self time by function:')
  for (const [k, t] of sorted(fn).slice(0, top)) out.push(`  ${pctOf(t)}  ${k}`)
  // Inclusive time: a function's own samples and everything it called (each frame counted once per stack).
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const incl = new Map<string, number>()
  for (const [id, t] of self) {
    const seen = new Set<string>()
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!
      const name = `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`
      if (seen.has(name)) continue
      seen.add(name)
      incl.set(name, (incl.get(name) ?? 0) + t)
    }
  }
  out.push('', 'inclusive time by function:')
  for (const [k, t] of sorted(incl).filter(([k]) => !/^\(root\)|^\(program\)|^\(idle\)/.test(k)).slice(0, top)) out.push(`  ${pctOf(t)}  ${k}`)
  return out.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(summarize(process.argv[2], Number(process.argv[3]) || 30))
}
