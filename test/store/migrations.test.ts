/**
 * Migrations that change existing rows, run on a database migrated up to the one before and filled
 * with the rows they must handle, as an upgrade would meet them.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import { hashPassword } from '../../src/security/api-keys.js'
import { loadConsoleSession, signIn } from '../../src/services/console-auth.js'
import { gateOf } from '../../src/services/second-factor.js'
import type { Deps } from '../../src/services/deps.js'
import { runMigrations } from '../../src/store/db.js'
import { claimDue } from '../../src/store/repos/deliveries.js'
import { freshDatabase, openTestPool } from '../helpers/db.js'

const MIGRATIONS = fileURLToPath(new URL('../../src/store/migrations', import.meta.url))

/** An empty database migrated up to and including `tag`, as a Till of that version left it. */
async function migratedUpTo(t: TestContext, tag: string) {
  const db = await freshDatabase({ migrated: false })
  const database = openTestPool(db.url, 2)
  t.after(async () => {
    await database.close()
    await db.drop()
  })
  const dir = mkdtempSync(path.join(tmpdir(), 'till-migrations-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  cpSync(MIGRATIONS, dir, { recursive: true })
  const journal = JSON.parse(readFileSync(path.join(dir, 'meta/_journal.json'), 'utf8'))
  const last = journal.entries.findIndex((e: { tag: string }) => e.tag === tag)
  assert.ok(last >= 0, tag)
  journal.entries = journal.entries.slice(0, last + 1)
  writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify(journal))
  await migrate(drizzle(database.pool), { migrationsFolder: dir })
  return database
}

test('0006: emails that differ only in case keep one login, the oldest merchant\'s; the others\' is cleared, logged, and their sessions end', async (t) => {
  const { pool } = await migratedUpTo(t, '0005_discrepancies')
  await pool.query(`insert into merchants (id, name, email, password_hash, created_at) values
    ('mer_b', 'Later', 'dup@example.com', 'hash-b', '2024-02-01T00:00:00Z'),
    ('mer_c', 'Same time, larger id', 'DUP@EXAMPLE.COM', 'hash-c', '2024-01-01T00:00:00Z'),
    ('mer_a', 'Oldest', 'Dup@Example.com', 'hash-a', '2024-01-01T00:00:00Z'),
    ('mer_s', 'Alone', 'Solo@Example.com', 'hash-s', '2024-01-01T00:00:00Z'),
    ('mer_n', 'No login', null, null, '2024-01-01T00:00:00Z')`)
  await pool.query(`insert into console_sessions (token_hash, merchant_id, csrf_token, last_seen_at) values
    ('t-a', 'mer_a', 'x', now()), ('t-b', 'mer_b', 'x', now())`)

  await runMigrations(pool)

  const merchants = (await pool.query('select id, email, password_hash from merchants order by id')).rows
  assert.deepEqual(merchants, [
    { id: 'mer_a', email: 'dup@example.com', password_hash: 'hash-a' },
    { id: 'mer_b', email: null, password_hash: null },
    { id: 'mer_c', email: null, password_hash: null },
    { id: 'mer_n', email: null, password_hash: null },
    { id: 'mer_s', email: 'solo@example.com', password_hash: 'hash-s' },
  ])
  const sessions = (await pool.query('select token_hash, revoked_at is not null as revoked from console_sessions order by token_hash')).rows
  assert.deepEqual(sessions, [{ token_hash: 't-a', revoked: false }, { token_hash: 't-b', revoked: true }])
  const logged = (await pool.query(`select merchant_id, actor, detail from console_activity where action = 'console_login_cleared' order by merchant_id`)).rows
  assert.deepEqual(logged, [
    { merchant_id: 'mer_b', actor: 'operator', detail: { email: 'dup@example.com', keptBy: 'mer_a' } },
    { merchant_id: 'mer_c', actor: 'operator', detail: { email: 'DUP@EXAMPLE.COM', keptBy: 'mer_a' } },
  ])
  await assert.rejects(pool.query(`insert into merchants (id, name, email) values ('mer_d', 'D', 'SOLO@example.com')`), { code: '23505' })
})

test('0006: a previous webhook secret still in its overlap is carried into the list, with its expiry; an expired one is not', async (t) => {
  const { pool } = await migratedUpTo(t, '0005_discrepancies')
  const expiresAt = new Date(Date.now() + 3600_000)
  await pool.query(`insert into merchants (id, name) values ('mer_a', 'A')`)
  await pool.query(`insert into webhook_endpoints (id, merchant_id, mode, url, secret_enc, previous_secret_enc, previous_secret_expires_at) values
    ('we_live', 'mer_a', 'test', 'https://x.example', 'current', 'previous', $1),
    ('we_past', 'mer_a', 'test', 'https://x.example', 'current', 'previous', now() - interval '1 second'),
    ('we_none', 'mer_a', 'test', 'https://x.example', 'current', null, null)`, [expiresAt])

  await runMigrations(pool)

  const rows = (await pool.query('select id, secret_enc, previous_secrets from webhook_endpoints order by id')).rows
  assert.deepEqual(rows, [
    { id: 'we_live', secret_enc: 'current', previous_secrets: [{ secretEnc: 'previous', expiresAt: expiresAt.getTime() }] },
    { id: 'we_none', secret_enc: 'current', previous_secrets: [] },
    { id: 'we_past', secret_enc: 'current', previous_secrets: [] },
  ])
})

test('0011: a statement file kept whole moves into chunks of 1 MiB that read back as the same bytes; an empty file has none', async (t) => {
  const { pool } = await migratedUpTo(t, '0010_statement_payment_ref')
  const client = await pool.connect()
  try {
    // The statement's merchant and configuration do not matter here: foreign keys are not checked for these rows.
    await client.query('set session_replication_role = replica')
    await client.query(`insert into statements (id, merchant_id, mode, provider, provider_config_id, day, zone, state)
      values ('stm_a', 'mer_a', 'live', 'wechat', 'pc_a', '2026-05-20', 'Asia/Shanghai', 'reconciled')`)
    await client.query(`insert into statement_files (statement_id, name, type, sha256, size, body)
      select 'stm_a', 'tradebill', 'text/csv', encode(sha256(b), 'hex'), length(b), b
      from (select convert_to(string_agg(md5(g::text), '' order by g), 'UTF8') as b from generate_series(1, 80000) g) x
      union all select 'stm_a', 'fundflowbill', 'text/csv', encode(sha256(''::bytea), 'hex'), 0, ''::bytea`)
  } finally {
    client.release()
  }

  await runMigrations(pool)

  const { rows } = await pool.query(`select f.name, f.size, count(c.seq)::int as chunks, coalesce(max(length(c.data)), 0) as largest,
      encode(sha256(coalesce(string_agg(c.data, ''::bytea order by c.seq), ''::bytea)), 'hex') = f.sha256 as same
    from statement_files f left join statement_file_chunks c using (statement_id, name) group by f.name, f.size, f.sha256 order by f.name`)
  assert.deepEqual(rows, [
    { name: 'fundflowbill', size: 0, chunks: 0, largest: 0, same: true },
    { name: 'tradebill', size: 2_560_000, chunks: 3, largest: 1 << 20, same: true },
  ])
})

test('0017: an event appended before it keeps its row and has no traceparent; its pending delivery is still claimed, to be sent in a trace of its own', async (t) => {
  const database = await migratedUpTo(t, '0012_session_locale')
  const { pool } = database
  const client = await pool.connect()
  try {
    await client.query('set session_replication_role = replica')
    await client.query(`insert into webhook_endpoints (id, merchant_id, mode, url, secret_enc) values ('we_a', 'mer_a', 'test', 'https://merchant.example/hook', 'sealed')`)
    await client.query(`insert into events (id, merchant_id, mode, type, data, payload, created_at)
      values ('evt_a', 'mer_a', 'test', 'payment.succeeded', '{"sessionId":"cs_a"}', '{"id":"evt_a"}', '2026-11-01T00:00:00Z')`)
    await client.query(`insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at) values ('evt_a', 'we_a', 'pending', '2026-11-01T00:00:00Z')`)
  } finally {
    client.release()
  }

  await runMigrations(pool)

  const { rows } = await pool.query(`select id, type, data, payload, traceparent from events`)
  assert.deepEqual(rows, [{ id: 'evt_a', type: 'payment.succeeded', data: { sessionId: 'cs_a' }, payload: '{"id":"evt_a"}', traceparent: null }])
  const now = new Date('2026-11-02T00:00:00Z')
  const claimed = await claimDue(database.db, { now, leaseUntil: new Date(now.getTime() + 60_000), token: 'lease', limit: 10, perEndpoint: 8 })
  assert.deepEqual(claimed.map((c) => [c.eventId, c.endpointId, c.traceparent]), [['evt_a', 'we_a', null]])
})

test('0016: each merchant\'s login becomes its first owner with the same password, and its open session stays signed in', async (t) => {
  const database = await migratedUpTo(t, '0012_session_locale')
  const { pool } = database
  const hash = await hashPassword('the old password')
  await pool.query(`insert into merchants (id, name, email, password_hash, created_at) values
    ('mer_a', 'Shop', 'shop@example.com', $1, '2024-01-01T00:00:00Z'), ('mer_n', 'No login', null, null, '2024-01-01T00:00:00Z')`, [hash])
  const token = 'an-open-session-token'
  await pool.query(`insert into console_sessions (token_hash, merchant_id, csrf_token, last_seen_at) values ($1, 'mer_a', 'x', now())`,
    [createHash('sha256').update(token).digest('hex')])

  await runMigrations(pool)

  const members = (await pool.query('select merchant_id, email, role, password_hash = $1 as same_password from console_members order by merchant_id', [hash])).rows
  assert.deepEqual(members, [{ merchant_id: 'mer_a', email: 'shop@example.com', role: 'owner', same_password: true }])
  const deps = { db: database.db, clock: () => new Date() } as unknown as Deps
  const session = await loadConsoleSession(deps, token)
  assert.equal(session?.member.email, 'shop@example.com', 'the session opened before the upgrade is the owner\'s')
  const signed = await signIn(deps, { email: 'Shop@Example.com', password: 'the old password', ip: '127.0.0.1' })
  assert.equal(signed.ok, true)
  assert.deepEqual(await signIn(deps, { email: 'shop@example.com', password: 'wrong password', ip: '127.0.0.1' }), { ok: false, reason: 'invalid' })
})

test('0013: disputes start empty beside the paid records an upgrade meets; one row per provider dispute of a record, amounts past 2^31 kept', async (t) => {
  const { pool } = await migratedUpTo(t, '0012_session_locale')
  const client = await pool.connect()
  try {
    await client.query('set session_replication_role = replica')
    await client.query(`insert into records (id, session_id, merchant_id, mode, provider, provider_ref, amount, currency, status, paid_at)
      values ('rec_a', 'sess_a', 'mer_a', 'live', 'stripe', 'pi_a', 1500, 'JPY', 'paid', now())`)
  } finally {
    client.release()
  }

  await runMigrations(pool)

  assert.deepEqual((await pool.query('select count(*)::int as n from disputes')).rows, [{ n: 0 }])
  const insert = (id: string, ref: string, amount: number) => pool.query(`insert into disputes (id, record_id, session_id, merchant_id, mode, provider, provider_ref, amount, currency, status)
    select $1, id, session_id, merchant_id, mode, provider, $2, $3, currency, 'needs_response' from records where id = 'rec_a'`, [id, ref, amount])
  await insert('dsp_a', 'dp_1', 1500)
  await assert.rejects(insert('dsp_b', 'dp_1', 1500), /disputes_record_ref_uq/)
  await insert('dsp_c', 'dp_2', 3_000_000_000)
  assert.deepEqual((await pool.query('select id, provider_ref, amount::text from disputes order by id')).rows, [
    { id: 'dsp_a', provider_ref: 'dp_1', amount: '1500' },
    { id: 'dsp_c', provider_ref: 'dp_2', amount: '3000000000' },
  ])
})

test('0018: members and sessions an upgrade meets go on without a second factor; the new tables take a factor, codes and a policy', async (t) => {
  const database = await migratedUpTo(t, '0017_event_traceparent')
  const { pool } = database
  const hash = await hashPassword('the old password')
  await pool.query(`insert into merchants (id, name, email, password_hash) values ('mer_a', 'Shop', 'shop@example.com', $1)`, [hash])
  await pool.query(`insert into console_members (id, merchant_id, email, password_hash, role) values ('mem_a', 'mer_a', 'shop@example.com', $1, 'owner')`, [hash])
  const token = 'a-session-from-before'
  const tokenHash = createHash('sha256').update(token).digest('hex')
  await pool.query(`insert into console_sessions (token_hash, merchant_id, member_id, csrf_token, last_seen_at) values ($1, 'mer_a', 'mem_a', 'x', now())`, [tokenHash])

  await runMigrations(pool)

  const deps = { db: database.db, clock: () => new Date() } as unknown as Deps
  const session = await loadConsoleSession(deps, token)
  assert.ok(session)
  assert.deepEqual(await gateOf(deps, session), { enrolled: false, checkedAt: null, required: false, state: 'ok' }, 'fully signed in, as before')
  await pool.query(`insert into console_second_factors (member_id, merchant_id, secret_enc, confirmed_at) values ('mem_a', 'mer_a', 'v1:x', now())`)
  assert.equal((await gateOf(deps, session)).state, 'code', 'once enrolled, a session not checked is half signed in')
  await pool.query(`insert into console_recovery_codes (member_id, code_hash) values ('mem_a', 'h1')`)
  await assert.rejects(pool.query(`insert into console_recovery_codes (member_id, code_hash) values ('mem_x', 'h1')`), { code: '23503' })
  await pool.query(`insert into merchant_console_policies (merchant_id, refund_limits) values ('mer_a', '{"JPY": 50000}')`)
  assert.deepEqual((await pool.query('select require_second_factor, refund_limits from merchant_console_policies')).rows, [{ require_second_factor: false, refund_limits: { JPY: 50000 } }])
  await pool.query(`insert into console_session_checks (token_hash, checked_at) values ($1, now())`, [tokenHash])
  await pool.query('delete from console_sessions where token_hash = $1', [tokenHash])
  assert.equal((await pool.query('select count(*)::int as n from console_session_checks')).rows[0].n, 0, 'a session\'s check goes with it')
})

test('0020: a team an upgrade meets (members, an open session) signs in as before; resets take its members, and only existing ones', async (t) => {
  const database = await migratedUpTo(t, '0017_event_traceparent')
  const { pool } = database
  const hash = await hashPassword('the team password')
  await pool.query(`insert into merchants (id, name, email, password_hash, created_at) values ('mer_a', 'Shop', 'shop@example.com', $1, '2024-01-01T00:00:00Z')`, [hash])
  await pool.query(`insert into console_members (id, merchant_id, email, password_hash, role) values
    ('mem_owner', 'mer_a', 'shop@example.com', $1, 'owner'), ('mem_dev', 'mer_a', 'dev@example.com', $1, 'developer')`, [hash])
  const token = 'an-open-session-token'
  await pool.query(`insert into console_sessions (token_hash, merchant_id, member_id, csrf_token, last_seen_at) values ($1, 'mer_a', 'mem_dev', 'x', now())`,
    [createHash('sha256').update(token).digest('hex')])

  await runMigrations(pool)

  const deps = { db: database.db, clock: () => new Date() } as unknown as Deps
  assert.equal((await loadConsoleSession(deps, token))?.member.email, 'dev@example.com')
  assert.equal((await signIn(deps, { email: 'shop@example.com', password: 'the team password', ip: '127.0.0.1' })).ok, true)
  assert.deepEqual((await pool.query('select count(*)::int as n from member_emails')).rows, [{ n: 0 }])
  await pool.query(`insert into console_password_resets (token_hash, merchant_id, member_id, made_by, expires_at) values ('h1', 'mer_a', 'mem_dev', 'mem_owner', now() + interval '30 minutes')`)
  await assert.rejects(pool.query(`insert into console_password_resets (token_hash, merchant_id, member_id, expires_at) values ('h2', 'mer_a', 'mem_gone', now())`), /foreign key/)
})
