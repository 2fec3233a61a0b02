import type { EventType } from '../../domain/events.js'
import { newId } from '../../domain/ids.js'
import type { Executor } from '../db.js'
import { events } from '../schema.js'
import type { Scope } from './scope.js'

/** Appends an event to the outbox. Call it inside the transaction of the change it describes. */
export async function appendEvent(tx: Executor, scope: Scope, type: EventType, data: Record<string, unknown>, now: Date) {
  const [e] = await tx.insert(events).values({ id: newId('evt'), merchantId: scope.merchantId, mode: scope.mode, type, data, createdAt: now }).returning()
  return e
}
