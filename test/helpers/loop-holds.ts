/**
 * How long this process's own work held the event loop at once, with the time the machine left the
 * process waiting for a CPU taken out. A busy machine (other work on both cores) stretches every hold
 * and stalls the process between turns of its loop; measured on the wall clock alone, such a stall
 * reads as the code under test holding the loop. On Linux the main thread's run-queue wait comes
 * from /proc/thread-self/schedstat (its second field, ns) and is subtracted from the wall time
 * between turns, and from the whole run; what is left is the thread's own running, and its waits for
 * anything but a CPU (a garbage collection's helper threads, say), which the loop's users do feel.
 * Elsewhere nothing is subtracted.
 */
import { readFileSync } from 'node:fs'

/** A reader of the main thread's run-queue wait so far (ms): the time the machine left it waiting for a CPU; 0 off Linux. */
export function runQueueWaitMs(): () => number {
  try {
    const read = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6
    if (Number.isFinite(read())) return read
  } catch {
    // not Linux: no correction
  }
  return () => 0
}

/** Starts sampling every `everyMs`; `stop()` gives the longest hold and the run's length, both without the machine's stalls (ms). */
export function loopHolds(everyMs = 5): { stop(): { longestMs: number; runMs: number } } {
  const waited = runQueueWaitMs()
  const read = () => ({ wall: performance.now(), waited: waited() })
  const first = read()
  let last = first
  let longestMs = 0
  const sample = () => {
    const now = read()
    longestMs = Math.max(longestMs, now.wall - last.wall - (now.waited - last.waited))
    last = now
  }
  const timer = setInterval(sample, everyMs)
  return {
    stop() {
      clearInterval(timer)
      sample()
      return { longestMs, runMs: last.wall - first.wall - (last.waited - first.waited) }
    },
  }
}
