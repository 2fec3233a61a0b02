/**
 * What Till reads from a provider at most (docs/operate.md#what-till-reads-from-a-provider): a
 * merchant may point its own configuration at a server it controls, so every answer and download
 * is bounded in bytes and in time while it is read, and a statement's archive before and while it
 * is unpacked. One merchant's statement must never exhaust the process that serves everyone.
 */

const MiB = 1 << 20

/** An API answer (JSON of a few KB): more closes the connection, an `unknown` outcome. */
export const ANSWER_MAX_BYTES = MiB
/** An API answer's whole exchange, headers and body, is bounded by this many times the client's timeout. */
export const ANSWER_DEADLINE_TIMEOUTS = 2

/** A zip of more entries is refused before any is read (Alipay's bill holds two). */
export const ZIP_MAX_ENTRIES = 16
/** An entry that unpacks to more than this many times its packed size (past 1 MiB) is refused: CSV packs 5-20 times. */
export const ZIP_MAX_RATIO = 200
export const ZIP_RATIO_FROM_BYTES = MiB

/** Statements: TILL_STATEMENT_MAX_MB, TILL_STATEMENT_ZIP_MAX_MB, TILL_STATEMENT_DOWNLOAD_S (config.ts). */
export interface StatementLimits {
  /** A day's statement, all its files together, unpacked; also the most one download may send. */
  maxBytes: number
  /** A zip, which is held in memory to be read (its directory is at its end). */
  zipMaxBytes: number
  /** One download, start to end. */
  downloadMs: number
}

export const DEFAULT_STATEMENT_LIMITS: StatementLimits = { maxBytes: 256 * MiB, zipMaxBytes: 32 * MiB, downloadMs: 600_000 }

/** `n` bytes in MiB, for a reason a person reads. */
export const inMiB = (n: number) => `${Math.round((n / MiB) * 10) / 10} MiB`
