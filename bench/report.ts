/**
 * docs/benchmarks.md is generated: each bench owns one section between markers and rewrites only
 * that one, so `npm run bench -- api` leaves the scale-out and webhook sections as they were. Text
 * outside the markers (the profiling story) is written by hand and kept.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { machine } from './db.js'
import type { LoadResult } from './load.js'

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/benchmarks.md')

export const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–')
export const ms = (v: number) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : '–')
export const pct = (a: number, b: number) => `${Math.round((100 * a) / b)} %`

/** "200: 3, 503: 1" for the answers that were not 2xx, and connection errors. */
export function failures(r: LoadResult): string {
  const parts = Object.entries(r.non2xx).map(([c, n]) => `${c}: ${n}`)
  if (r.errors) parts.push(`errors: ${r.errors}`)
  return parts.join(', ')
}

export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map((h, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n')
}

/** Where and when a section was measured: the same header on every section. */
export function context(extra: string[] = []): string {
  const m = machine()
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' / ')
  return [
    `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}; command: \`npm run bench${process.argv.slice(2).length ? ' -- ' + process.argv.slice(2).join(' ') : ''}\``,
    `- Machine: ${m.cpus} × ${m.model}, ${m.memory} memory, ${m.kernel}; Node ${m.node}; load average (1/5/15 min) at the end: ${load}`,
    ...extra.map((e) => `- ${e}`),
  ].join('\n')
}

const HEADER = `# Benchmarks

<!-- Sections between bench markers are written by \`npm run bench\` (bench/run.ts); edit the text outside them. -->
`

export function writeSection(name: string, markdown: string) {
  const start = `<!-- bench:${name}:start -->`
  const end = `<!-- bench:${name}:end -->`
  const block = `${start}\n${markdown.trim()}\n${end}`
  let doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : HEADER
  const a = doc.indexOf(start)
  const b = doc.indexOf(end)
  if (a >= 0 && b > a) doc = doc.slice(0, a) + block + doc.slice(b + end.length)
  else doc = `${doc.trimEnd()}\n\n${block}\n`
  mkdirSync(path.dirname(DOC), { recursive: true })
  writeFileSync(DOC, doc)
}
