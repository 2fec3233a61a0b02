/**
 * A fake's timed jobs (webhook retries, delayed deliveries, refund settlement), due by an injectable
 * clock, so tests move time by hand instead of sleeping; `till fake` runs them on a timer instead.
 */
interface Job {
  dueMs: number
  seq: number
  run: () => Promise<void>
}

export class JobQueue {
  private jobs: Job[] = []
  private seq = 0

  constructor(private readonly clock: () => Date) {}

  schedule(delayMs: number, run: () => Promise<void>) {
    this.jobs.push({ dueMs: this.clock().getTime() + delayMs, seq: this.seq++, run })
  }

  /** Runs every job due by the clock, oldest first, including jobs those jobs schedule for now. */
  async runDue(): Promise<number> {
    let ran = 0
    for (;;) {
      const now = this.clock().getTime()
      const due = this.jobs.filter((j) => j.dueMs <= now).sort((a, b) => a.dueMs - b.dueMs || a.seq - b.seq)
      if (due.length === 0) return ran
      this.jobs = this.jobs.filter((j) => !due.includes(j))
      for (const j of due) {
        await j.run()
        ran++
      }
    }
  }

  pending = () => this.jobs.length

  /** When the earliest pending job is due (clock milliseconds), or null when none is. */
  nextDueMs = (): number | null => (this.jobs.length ? Math.min(...this.jobs.map((j) => j.dueMs)) : null)

  /** Runs due jobs every `everyMs` (never two runs at once); returns the stop. */
  autoRun(everyMs: number): () => void {
    let running = false
    const timer = setInterval(() => {
      if (running) return
      running = true
      this.runDue().catch(() => {}).finally(() => (running = false))
    }, everyMs)
    return () => clearInterval(timer)
  }
}
