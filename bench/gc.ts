/**
 * A process's garbage collections during a run, from V8's `--trace-gc-nvp` lines in the file its
 * output goes to (bench/till.ts and bench/api.ts start Till and the ceiling so when given one): one
 * line per collection, `gc=s` for a young-generation one (a scavenge), with its pause, the bytes
 * allocated since the last collection and those it moved to the old generation (`promoted`).
 */
import { readFileSync } from 'node:fs'

export interface GcWindow {
  /** Young-generation collections, and their pauses summed (ms). */
  young: number
  youngPauseMs: number
  /** The longest pause of any collection (ms). */
  maxPauseMs: number
  allocated: number
  promoted: number
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(' pause=') && l.includes(' gc='))
const field = (l: string, name: string) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(l)?.[1] ?? 0)

/** A mark in the file: the collections logged so far. */
export const gcMark = (file: string) => lines(file).length

/** The collections logged since `mark`. */
export function gcSince(file: string, mark: number): GcWindow {
  const w: GcWindow = { young: 0, youngPauseMs: 0, maxPauseMs: 0, allocated: 0, promoted: 0 }
  for (const l of lines(file).slice(mark)) {
    const pause = field(l, 'pause')
    w.maxPauseMs = Math.max(w.maxPauseMs, pause)
    w.allocated += field(l, 'allocated')
    if (!/ gc=s\b/.test(l)) continue
    w.young++
    w.youngPauseMs += pause
    w.promoted += field(l, 'promoted')
  }
  return w
}
