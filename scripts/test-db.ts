/**
 * Test databases. `embedded DIR` starts a private cluster for the test run; `template URL` migrates
 * a template database from which every test file clones its own fresh database; `stop DIR` stops it.
 */
import pg from 'pg'
import { openPool, runMigrations } from '../src/store/db.js'
import { ensureDatabase, startEmbedded, stopEmbedded } from '../src/store/embedded.js'

export const TEMPLATE = 'till_template'

async function makeTemplate(adminUrl: string) {
  const url = new URL(adminUrl)
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`drop database if exists ${TEMPLATE}`)
  await admin.end()
  await ensureDatabase({ connectionString: adminUrl }, TEMPLATE)
  url.pathname = `/${TEMPLATE}`
  const db = openPool(url.toString(), 1)
  await runMigrations(db.pool)
  await db.close()
}

const [cmd, arg] = process.argv.slice(2)
const log = { info: (m: string) => console.error(m), warn: (m: string) => console.error(m) }
if (cmd === 'embedded') {
  const pgc = await startEmbedded(arg, log)
  const c = pgc.connection
  const url = `postgresql://${c.user}:${encodeURIComponent(String(c.password))}@localhost/postgres?host=${encodeURIComponent(String(c.host))}&port=${c.port}`
  await makeTemplate(url)
  process.stdout.write(url)
  process.exit(0)
} else if (cmd === 'template') {
  await makeTemplate(arg)
} else if (cmd === 'stop') {
  await stopEmbedded(arg)
} else {
  console.error('usage: test-db.ts embedded DIR | template URL | stop DIR')
  process.exit(2)
}
