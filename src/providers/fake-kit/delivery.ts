/**
 * What a fake's notifier does whatever the provider: the delivery knobs (drop, delay, duplicate,
 * reorder) and one plain HTTP attempt. The body, headers and signature, what counts as an ack and
 * the retry schedule stay in each provider's notify.ts.
 */
import type { JobQueue } from './jobs.js'

export type NotifyMode = 'immediate' | 'delayed' | 'drop' | 'duplicate' | 'reorder'
export const NOTIFY_MODES: NotifyMode[] = ['immediate', 'delayed', 'drop', 'duplicate', 'reorder']

export interface NotifyKnob {
  mode: NotifyMode
  delayMs: number
  /** Deliveries for `duplicate`. */
  count: number
  /** Keep the mode for every notification, not just the next one. */
  persist: boolean
}

export const defaultNotifyKnob = (): NotifyKnob => ({ mode: 'immediate', delayMs: 0, count: 2, persist: false })

/** The knob for one notification; unless it persists, the ones after it go out normally. */
export function takeNotifyKnob(knobs: { notify: NotifyKnob }): NotifyKnob {
  const knob = knobs.notify
  if (!knob.persist) knobs.notify = { ...knob, mode: 'immediate' }
  return knob
}

/** Sends first attempts as the knob says; `deliver` makes one attempt (and schedules its retries). */
export class Dispatcher<Out> {
  /** An outgoing notification held back by `reorder`, sent right after the next one. */
  private held: Out | null = null

  constructor(
    private readonly jobs: JobQueue,
    private readonly deliver: (out: Out) => Promise<void>,
    /** Records what the drop knob swallowed. */
    private readonly dropped: (out: Out) => void,
  ) {}

  async send(out: Out, { mode, delayMs, count }: NotifyKnob) {
    if (mode === 'drop') {
      this.dropped(out)
      return
    }
    if (mode === 'reorder' && !this.held) {
      this.held = out
      return
    }
    if (mode === 'delayed') this.jobs.schedule(delayMs, () => this.deliver(out))
    else for (let i = 0; i < (mode === 'duplicate' ? count : 1); i++) await this.deliver(out)
    const held = this.held
    if (held && held !== out) {
      this.held = null
      await this.deliver(held)
    }
  }

  /** Releases a notification still held by `reorder` (nothing followed it). */
  async flushHeld() {
    const held = this.held
    this.held = null
    if (held) await this.deliver(held)
  }
}

/** One POST as providers make it: redirects not followed, the answer read to the end, a deadline. */
export async function post(url: string, headers: Record<string, string>, body: string, deadlineMs: number): Promise<{ status: number | null; error?: string }> {
  let status: number | null = null
  try {
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(deadlineMs), redirect: 'manual' })
    status = res.status
    await res.arrayBuffer()
    return { status }
  } catch (e) {
    return { status, error: (e as Error).name === 'TimeoutError' ? `no answer within ${deadlineMs} ms` : (e as Error).message }
  }
}

/** One POST whose answer's text matters (a provider that wants a literal body as its ack). */
export async function postForText(url: string, headers: Record<string, string>, body: string, deadlineMs: number): Promise<{ status: number | null; text: string; error?: string }> {
  let status: number | null = null
  try {
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(deadlineMs), redirect: 'manual' })
    status = res.status
    return { status, text: await res.text() }
  } catch (e) {
    return { status, text: '', error: (e as Error).name === 'TimeoutError' ? `no answer within ${deadlineMs} ms` : (e as Error).message }
  }
}
