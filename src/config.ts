/** Environment → typed configuration, read once (docs/operate.md). */
import { readFileSync } from 'node:fs'
import { isEmailAddress } from './domain/customer-email.js'
import { DEFAULT_STATEMENT_LIMITS, type StatementLimits } from './providers/limits.js'
import { hostKind } from './security/private-address.js'

const MiB = 1 << 20

export interface Config {
  port: number
  host: string
  baseUrl: string
  databaseUrl: string | null
  /**
   * DATABASE_DIRECT_URL: PostgreSQL itself, when DATABASE_URL is a transaction pooler (PgBouncer):
   * LISTEN and the migration lock go there. Unset, DATABASE_URL serves both.
   */
  databaseDirectUrl: string | null
  /**
   * DATABASE_PREPARED_STATEMENTS: `named` (prepared once per connection) or `unnamed` (parsed on
   * every run, as a transaction pooler without max_prepared_statements needs). Default: `unnamed`
   * with DATABASE_DIRECT_URL, `named` without.
   */
  databaseStatements: 'named' | 'unnamed'
  dataDir: string
  adminToken: string | null
  secretsKey: string | null
  logLevel: string
  rateLimitPerSecond: number
  jobsEnabled: boolean
  /**
   * WEBHOOK_ALLOW_PRIVATE: whether webhook deliveries may reach loopback, private, link-local and
   * reserved addresses, in both modes. `1` or `0`; unset, only where Till serves this machine alone.
   */
  webhookAllowPrivate: boolean
  /**
   * PROVIDER_ALLOW_PRIVATE=1: a provider configuration's settings.apiBase may be plain http and reach
   * loopback, private and link-local addresses (the local fakes); otherwise https to public addresses only.
   */
  providerAllowPrivate: boolean
  /**
   * SMTP_URL (or SMTP_URL_FILE): the server buyers' receipts and refund notices go through, as
   * smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465; unset, Till sends no email.
   */
  smtpUrl: string | null
  /** MAIL_FROM: the sender address of those emails (required with SMTP_URL); the merchant's name is its display name. */
  mailFrom: string | null
  /** METRICS_TOKEN: when set, GET /metrics requires `Authorization: Bearer <token>`; unset, it is open. */
  metricsToken: string | null
  /** TRUST_PROXY: which proxies' X-Forwarded-For to believe for the client address (Fastify's trustProxy). */
  trustProxy: boolean | number | string
  /** TILL_DELIVERY_LEASE_MS: how long a claimed webhook delivery is reserved before another worker may take it over (default 60 s). */
  deliveryLeaseMs: number
  /** TILL_RELAY_WAIT_MS: how long the relay page waits for a payment in flight to be confirmed (default and most 5 s). */
  relayWaitMs: number
  /** ACTIVITY_RETENTION_DAYS (default 400; 0: forever): how long the activity log keeps an entry (docs/operate.md#configuration). */
  activityRetentionDays: number
  /**
   * TILL_WEBHOOK_DISABLE_AFTER_HOURS (default 72; 0: never): a webhook endpoint whose every attempt
   * failed for this long, and at least TILL_WEBHOOK_DISABLE_MIN_FAILURES (default 10) attempts, is
   * disabled (docs/integrate.md#endpoint-health).
   */
  webhookDisableAfterMs: number
  webhookDisableMinFailures: number
  /**
   * What a provider's statement may hold and take (docs/operate.md#what-till-reads-from-a-provider):
   * TILL_STATEMENT_MAX_MB (default 256) for a day's files together, unpacked, and one download;
   * TILL_STATEMENT_ZIP_MAX_MB (default 32) for a zip, held in memory to be read;
   * TILL_STATEMENT_DOWNLOAD_S (default 600) for one download, start to end.
   */
  statementLimits: StatementLimits
}

/**
 * Unset: the socket's peer is the client. A number: that many proxies in front (1 for one TLS
 * proxy). `true`: every proxy (only when nothing else can reach Till). Otherwise addresses or
 * CIDRs, comma-separated (`loopback`, `10.0.0.0/8`).
 */
export function parseTrustProxy(value: string | undefined): boolean | number | string {
  const v = (value ?? '').trim()
  if (v === '' || v === 'false') return false
  if (v === 'true') return true
  if (/^\d+$/.test(v)) return Number(v)
  return v
}

/** The relay waits at most 5 seconds (docs/integrate.md): shorter is allowed, longer is not. */
export const MAX_RELAY_WAIT_MS = 5000

/** A whole number of `unit` within [min, max], or the default when unset. */
function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, unit = 'milliseconds'): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number of ${unit} from ${min} to ${max}, got ${raw}`)
  return n
}

/** The settings that hold a secret: each may instead name a file holding it, as NAME_FILE. */
export const SECRET_SETTINGS = ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'SECRETS_KEY', 'ADMIN_TOKEN', 'METRICS_TOKEN', 'SMTP_URL'] as const

/**
 * A secret setting's value: NAME, or the content of the file NAME_FILE names (a container's
 * mounted secret, kept out of the environment that `docker inspect` shows), its final line
 * break dropped. Both set, or the file missing or empty, is an error at start, never a silent default.
 */
export function secretSetting(env: NodeJS.ProcessEnv, name: (typeof SECRET_SETTINGS)[number]): string | null {
  const file = env[`${name}_FILE`]
  if (!file) return env[name] || null
  if (env[name]) throw new Error(`set ${name} or ${name}_FILE, not both`)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new Error(`${name}_FILE: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`)
  }
  const value = text.replace(/\r?\n$/, '')
  if (value.trim() === '') throw new Error(`${name}_FILE: ${file} is empty`)
  return value
}

function parseStatements(env: NodeJS.ProcessEnv, databaseUrl: string | null, directUrl: string | null): 'named' | 'unnamed' {
  if (directUrl && !databaseUrl) throw new Error('DATABASE_DIRECT_URL needs DATABASE_URL (the pooler it bypasses)')
  const v = env.DATABASE_PREPARED_STATEMENTS || (directUrl ? 'unnamed' : 'named')
  if (v !== 'named' && v !== 'unnamed') throw new Error(`DATABASE_PREPARED_STATEMENTS must be named or unnamed, got ${v}`)
  return v
}

/**
 * Whether only this machine reaches Till: it listens on loopback and its public address is loopback
 * too (a laptop). A proxy on the same host listens on loopback but serves a public BASE_URL.
 */
export const servesThisMachineOnly = (c: Pick<Config, 'host' | 'baseUrl'>) =>
  hostKind(c.host) === 'loopback' && URL.canParse(c.baseUrl) && hostKind(new URL(c.baseUrl).hostname) === 'loopback'

/**
 * A laptop's merchant app listens on localhost, and only the laptop's owner uses that Till; on a
 * shared server loopback and the private network are the operator's, not a merchant's to read.
 */
function webhookAllowPrivate(env: NodeJS.ProcessEnv, where: Pick<Config, 'host' | 'baseUrl'>): boolean {
  const v = env.WEBHOOK_ALLOW_PRIVATE || ''
  if (v !== '' && v !== '0' && v !== '1') throw new Error(`WEBHOOK_ALLOW_PRIVATE must be 0 or 1, got ${v}`)
  return v === '' ? servesThisMachineOnly(where) : v === '1'
}

function mailSettings(env: NodeJS.ProcessEnv): Pick<Config, 'smtpUrl' | 'mailFrom'> {
  const smtpUrl = secretSetting(env, 'SMTP_URL')
  const mailFrom = env.MAIL_FROM?.trim() || null
  if (smtpUrl) {
    let url: URL | null = null
    try {
      url = new URL(smtpUrl)
    } catch {}
    if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) throw new Error('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…')
    if (!mailFrom) throw new Error('MAIL_FROM is needed with SMTP_URL: the address receipts are sent from')
  }
  if (mailFrom && !isEmailAddress(mailFrom)) throw new Error(`MAIL_FROM must be one email address such as receipts@shop.example, got ${mailFrom}`)
  return { smtpUrl, mailFrom }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = env.PORT ? Number(env.PORT) : 8080
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`)
  const host = env.HOST || '127.0.0.1'
  const baseUrl = (env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '')
  const databaseUrl = secretSetting(env, 'DATABASE_URL')
  const databaseDirectUrl = secretSetting(env, 'DATABASE_DIRECT_URL')
  return {
    port,
    host,
    baseUrl,
    databaseUrl,
    databaseDirectUrl,
    databaseStatements: parseStatements(env, databaseUrl, databaseDirectUrl),
    dataDir: env.DATA_DIR || './data',
    adminToken: secretSetting(env, 'ADMIN_TOKEN'),
    secretsKey: secretSetting(env, 'SECRETS_KEY'),
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitPerSecond: env.RATE_LIMIT_PER_SECOND ? Number(env.RATE_LIMIT_PER_SECOND) : 100,
    jobsEnabled: env.TILL_JOBS !== '0',
    webhookAllowPrivate: webhookAllowPrivate(env, { host, baseUrl }),
    providerAllowPrivate: env.PROVIDER_ALLOW_PRIVATE === '1',
    metricsToken: secretSetting(env, 'METRICS_TOKEN'),
    ...mailSettings(env),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    deliveryLeaseMs: whole(env, 'TILL_DELIVERY_LEASE_MS', 60_000, 1000, 3_600_000),
    relayWaitMs: whole(env, 'TILL_RELAY_WAIT_MS', MAX_RELAY_WAIT_MS, 0, MAX_RELAY_WAIT_MS),
    activityRetentionDays: whole(env, 'ACTIVITY_RETENTION_DAYS', 400, 0, 36_500, 'days'),
    webhookDisableAfterMs: whole(env, 'TILL_WEBHOOK_DISABLE_AFTER_HOURS', 72, 0, 8760, 'hours') * 3600_000,
    webhookDisableMinFailures: whole(env, 'TILL_WEBHOOK_DISABLE_MIN_FAILURES', 10, 1, 1000, 'attempts'),
    statementLimits: {
      maxBytes: whole(env, 'TILL_STATEMENT_MAX_MB', DEFAULT_STATEMENT_LIMITS.maxBytes / MiB, 1, 65_536, 'MiB') * MiB,
      zipMaxBytes: whole(env, 'TILL_STATEMENT_ZIP_MAX_MB', DEFAULT_STATEMENT_LIMITS.zipMaxBytes / MiB, 1, 4096, 'MiB') * MiB,
      downloadMs: whole(env, 'TILL_STATEMENT_DOWNLOAD_S', DEFAULT_STATEMENT_LIMITS.downloadMs / 1000, 1, 86_400, 'seconds') * 1000,
    },
  }
}
