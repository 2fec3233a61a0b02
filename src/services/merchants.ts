/** Merchants and their secret keys (docs/integrate.md#keys-modes-and-authentication, docs/operate.md#admin-api). Keys are shown once and stored hashed. */
import { sql } from 'drizzle-orm'
import type { Mode } from '../domain/checkout-rules.js'
import { EmailInUse, InvalidField, NotFound } from '../domain/errors.js'
import { newId, randomBase62 } from '../domain/ids.js'
import { generateApiKey, hashPassword } from '../security/api-keys.js'
import { uniqueViolation, type Executor } from '../store/db.js'
import { insertMember } from '../store/repos/members.js'
import * as repo from '../store/repos/merchants.js'
import type { Deps } from './deps.js'

const DEMO_LOCK = 7_411_002

export interface MerchantInput {
  name: string
  email?: string
  password?: string
}

async function addKey(tx: Executor, merchantId: string, mode: Mode, now: Date) {
  const { key, hash, last4 } = generateApiKey(mode)
  const row = await repo.insertApiKey(tx, { id: newId('key'), merchantId, mode, keyHash: hash, last4, createdAt: now })
  return { id: row.id, mode, key }
}

/** A console login email as stored: lower-cased, one merchant's whatever its case (merchants_email_lower_uq). */
export function loginEmail(email: string): string {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new InvalidField('email', 'must be an email address')
  return email.toLowerCase()
}

/** A write that sets a login email: the email's unique index answers for a taken one, with 409. */
export async function settingEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (e) {
    const taken = uniqueViolation(e)
    if (taken === 'merchants_email_lower_uq' || taken === 'console_members_email_lower_uq') throw new EmailInUse()
    throw e
  }
}

function checkMerchantInput(input: MerchantInput) {
  if (input.password !== undefined && input.password.length < 8) throw new InvalidField('password', 'must be at least 8 characters')
  return { ...input, email: input.email === undefined ? undefined : loginEmail(input.email) }
}

/** A merchant with one test and one live key, inside the caller's transaction. */
async function insertMerchantWithKeys(tx: Executor, input: MerchantInput, passwordHash: string | null, now: Date) {
  const id = newId('mer')
  await repo.insertMerchant(tx, { id, name: input.name, email: input.email ?? null, passwordHash, createdAt: now })
  // The merchant's login is its first owner (docs/console.md#members-and-roles).
  if (input.email) await insertMember(tx, { id: newId('mem'), merchantId: id, email: input.email, passwordHash, role: 'owner', createdAt: now })
  const test = await addKey(tx, id, 'test', now)
  const live = await addKey(tx, id, 'live', now)
  return { id, name: input.name, email: input.email ?? null, keys: { test: test.key, live: live.key } }
}

export async function createMerchant(deps: Deps, body: MerchantInput) {
  const input = checkMerchantInput(body)
  const passwordHash = input.password ? await hashPassword(input.password) : null
  return settingEmail(() => deps.db.transaction((tx) => insertMerchantWithKeys(tx, input, passwordHash, deps.clock())))
}

export async function createApiKey(deps: Deps, merchantId: string, mode: Mode) {
  return deps.db.transaction(async (tx) => {
    if (!(await repo.getMerchant(tx, merchantId))) throw new NotFound()
    return addKey(tx, merchantId, mode, deps.clock())
  })
}

export async function listApiKeys(deps: Deps, merchantId: string) {
  if (!(await repo.getMerchant(deps.db, merchantId))) throw new NotFound()
  return (await repo.listApiKeys(deps.db, merchantId)).map((k) => ({
    id: k.id,
    mode: k.mode,
    last4: k.last4,
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  }))
}

export async function revokeApiKey(deps: Deps, merchantId: string, keyId: string) {
  const key = await repo.revokeApiKey(deps.db, merchantId, keyId, deps.clock())
  // At once here; other instances drop it at their next claim, within a second (rate-limit.ts).
  deps.apiKeys.forget(keyId)
  if (!key) {
    const existing = await repo.getApiKey(deps.db, merchantId, keyId)
    if (!existing) throw new NotFound()
    return { id: existing.id, mode: existing.mode, revoked: true, revokedAt: existing.revokedAt!.toISOString() }
  }
  return { id: key.id, mode: key.mode, revoked: true, revokedAt: key.revokedAt!.toISOString() }
}

/** First start on an empty database: a "Demo" merchant whose keys and login are printed once. */
export async function bootstrapDemo(deps: Deps) {
  const password = randomBase62(16)
  const passwordHash = await hashPassword(password)
  return deps.db.transaction(async (tx) => {
    // Instances starting together on an empty database: exactly one creates Demo.
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_LOCK})`)
    if ((await repo.countMerchants(tx)) > 0) return null
    const m = await insertMerchantWithKeys(tx, { name: 'Demo', email: 'demo@example.com', password }, passwordHash, deps.clock())
    return { ...m, password }
  })
}

/** The merchant as stored; NotFound when there is none. */
export async function readMerchant(deps: Deps, merchantId: string) {
  const m = await repo.getMerchant(deps.db, merchantId)
  if (!m) throw new NotFound()
  return m
}
