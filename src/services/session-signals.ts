/**
 * "This session just finished", across instances. The transaction that makes a session paid,
 * failed, canceled or expired runs `pg_notify` (PostgreSQL delivers it to every listening
 * instance at commit); after the commit this process's own waiters are woken at once. The relay
 * page waits on these signals instead of polling the database.
 */
import { EventEmitter } from 'node:events'
import { sql } from 'drizzle-orm'
import type pg from 'pg'
import { outageLog, type OutageLog } from '../outage-log.js'
import { clientConfig, DbClient, type Db, type Executor, type Tx } from '../store/db.js'
import type { Logger } from './deps.js'

export const SESSION_CHANNEL = 'till_session'
const RECONNECT_MS = [50, 100, 250, 500, 1000, 2000, 5000]

/** Why a wait ended: the session was signalled (since subscribing or the last wait), the time ran out, or the process is stopping. */
export type WaitResult = 'signalled' | 'timeout' | 'closed'

export interface Subscription {
  wait(ms: number): Promise<WaitResult>
  close(): void
}

interface Waiter {
  signalled: boolean
  wake: (() => void) | null
}

/**
 * Emits 'listening' each time LISTEN is (re)established and 'waiting' (sessionId) when a
 * subscriber starts to wait: operators' logs and tests can observe both.
 */
export class SessionSignals extends EventEmitter {
  private readonly waiters = new Map<string, Set<Waiter>>()
  /** Sessions finished by a transaction that is still open: woken here once it commits. */
  private readonly finishedIn = new WeakMap<object, Set<string>>()
  private client: DbClient | null = null
  private connecting: Promise<void> | null = null
  private reconnectTimer: NodeJS.Timeout | null = null
  private failures = 0
  /** Set while LISTEN was down (lost, or never up): waiters may have missed a notification. */
  private deaf = false
  private closed = false
  /** Waits now blocked on a signal or their deadline (the `session_waits` gauge). */
  private blocked = 0
  private readonly outage: OutageLog

  constructor(
    private readonly connect: () => DbClient,
    log: Logger,
  ) {
    super()
    this.outage = outageLog(log)
  }

  /** A transaction whose finished sessions wake this process's waiters as soon as it has committed. */
  async transaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const finished = new Set<string>()
    const result = await db.transaction(async (tx) => {
      this.finishedIn.set(tx, finished)
      return fn(tx)
    })
    for (const id of finished) this.wake(id)
    return result
  }

  /** Inside the transaction that finishes a session: NOTIFY is sent to every instance at commit. */
  async announce(tx: Executor, sessionId: string): Promise<void> {
    await tx.execute(sql`select pg_notify(${SESSION_CHANNEL}, ${sessionId})`)
    this.finishedIn.get(tx)?.add(sessionId)
  }

  /**
   * Subscribe before reading the session, then wait: a signal that lands between the read and the
   * wait is kept, so it is never lost. Waits for LISTEN to be in place (or to have failed).
   */
  async subscribe(sessionId: string): Promise<Subscription> {
    const waiter: Waiter = { signalled: false, wake: null }
    if (this.closed) return closedSubscription
    let set = this.waiters.get(sessionId)
    if (!set) this.waiters.set(sessionId, (set = new Set()))
    set.add(waiter)
    await this.ensureListening()
    return {
      wait: (ms) => {
        if (this.closed) return Promise.resolve('closed')
        if (waiter.signalled) {
          waiter.signalled = false
          return Promise.resolve('signalled')
        }
        return new Promise<WaitResult>((resolve) => {
          this.blocked++
          const end = (result: WaitResult) => {
            this.blocked--
            waiter.wake = null
            resolve(result)
          }
          // The timer is the deadline, not a poll: a signal resolves the wait at once.
          const timer = setTimeout(() => end('timeout'), Math.max(0, ms))
          waiter.wake = () => {
            clearTimeout(timer)
            waiter.signalled = false
            end(this.closed ? 'closed' : 'signalled')
          }
          this.emit('waiting', sessionId)
        })
      },
      close: () => {
        set!.delete(waiter)
        if (set!.size === 0 && this.waiters.get(sessionId) === set) this.waiters.delete(sessionId)
      },
    }
  }

  /** Wakes this process's waiters for one session. */
  wake(sessionId: string): void {
    for (const w of this.waiters.get(sessionId) ?? []) {
      w.signalled = true
      w.wake?.()
    }
  }

  /** Waiters re-read on a reconnect or at close: a notification may have been missed meanwhile. */
  private wakeAll(): void {
    for (const id of [...this.waiters.keys()]) this.wake(id)
  }

  /** Waits in this process now blocked until a signal or their deadline, over all sessions. */
  waiting(): number {
    return this.blocked
  }

  /** Number of subscribers waiting on a session in this process. */
  subscribers(sessionId: string): number {
    return this.waiters.get(sessionId)?.size ?? 0
  }

  private ensureListening(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve()
    this.connecting ??= this.listen().finally(() => {
      this.connecting = null
    })
    return this.connecting
  }

  /** One dedicated connection per process (never a pooled one), listening on the channel. */
  private async listen(): Promise<void> {
    const client = this.connect()
    client.on('error', (err) => this.lost(client, err))
    client.on('end', () => this.lost(client, null))
    client.on('notification', (msg) => {
      if (msg.channel === SESSION_CHANNEL && msg.payload) this.wake(msg.payload)
    })
    try {
      await client.connect()
      await client.query(`listen ${SESSION_CHANNEL}`)
    } catch (err) {
      this.outage.failed('listen', err, 'session signals: LISTEN failed; retrying')
      this.deaf = true
      client.removeAllListeners('end')
      await client.end().catch(() => {})
      this.scheduleReconnect()
      return
    }
    if (this.closed) {
      await client.end().catch(() => {})
      return
    }
    this.client = client
    this.failures = 0
    client.heartbeat()
    this.outage.ok('listen', 'session signals: listening again')
    this.emit('listening')
    if (this.deaf) {
      this.deaf = false
      this.wakeAll()
    }
  }

  private lost(client: DbClient, err: unknown) {
    if (this.client !== client) return
    this.client = null
    client.removeAllListeners('end')
    client.end().catch(() => {})
    if (this.closed) return
    this.deaf = true
    this.outage.failed('listen', err, 'session signals: LISTEN connection lost; reconnecting')
    this.scheduleReconnect()
  }

  private scheduleReconnect() {
    if (this.closed || this.reconnectTimer) return
    const delay = RECONNECT_MS[Math.min(this.failures++, RECONNECT_MS.length - 1)]
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null
      void this.ensureListening()
    }, delay)
    this.reconnectTimer.unref()
  }

  /** Wakes every waiter (they answer with what they read) and closes the connection for good. */
  async close(): Promise<void> {
    this.closed = true
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    this.wakeAll()
    await this.connecting
    const client = this.client
    this.client = null
    if (client) {
      client.removeAllListeners('end')
      await client.end().catch(() => {})
    }
  }
}

const closedSubscription: Subscription = { wait: async () => 'closed', close() {} }

/** The listener connects like the pool does, but on a connection of its own. */
export function createSessionSignals(pool: pg.Pool, log: Logger): SessionSignals {
  return new SessionSignals(() => new DbClient(clientConfig(pool, { application_name: 'till-session-signals' })), log)
}
