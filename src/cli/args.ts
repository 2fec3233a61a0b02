/**
 * Argument parsing for `till`: node:util parseArgs per command, the shared connection flags, and
 * the two failure kinds the exit code distinguishes (usage errors exit 2, everything else 1).
 */
import { readFile } from 'node:fs/promises'
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** A failure the operator fixes by changing the command line (exit 2), or any other (exit 1). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 = 1, readonly hint?: string) {
    super(message)
  }
}

export const usageError = (message: string) => new CliError(message, 2)

export type Options = NonNullable<ParseArgsConfig['options']>
export type Values = Record<string, string | boolean | undefined>

export interface Parsed {
  values: Values
  positionals: string[]
}

export interface Command {
  /** One line for the group's list. */
  summary: string
  /** The full `--help` text: synopsis, options, examples. */
  help: string
  options: Options
  /** Names of the positional arguments, e.g. ['key_id']; a name ending in `?` is optional (only last ones). */
  positionals?: string[]
  run(args: Parsed): Promise<void>
}

export interface Group {
  name: string
  summary: string
  commands: Record<string, Command>
}

/**
 * Flags every command that talks to Till takes; the environment supplies them otherwise. --url is
 * --till-url's old name, easily read as a webhook endpoint's: still taken, with a warning.
 */
export const URL_OPTION: Options = { 'till-url': { type: 'string' }, url: { type: 'string' } }
export const ADMIN_OPTIONS: Options = { ...URL_OPTION, 'admin-token': { type: 'string' } }
export const API_OPTIONS: Options = { ...URL_OPTION, 'api-key': { type: 'string' } }
export const JSON_OPTION: Options = { json: { type: 'boolean' } }

/** Help lines for the connection flags, aligned with a command's own options at column `col`. */
export function connectionHelp(kind: 'admin' | 'api', col = 23): string {
  const line = (flag: string, text: string) => `  ${flag.padEnd(col - 2)}${text}`
  return [
    line('--till-url URL', 'Till\'s address (default $TILL_URL, else http://localhost:8080)'),
    kind === 'admin'
      ? line('--admin-token TOKEN', 'the ADMIN_TOKEN Till was started with (default $ADMIN_TOKEN)')
      : line('--api-key KEY', 'the merchant\'s secret key, sk_test_… or sk_live_… (default $TILL_API_KEY)'),
  ].join('\n')
}

export const wantsHelp = (argv: string[]) => {
  const end = argv.indexOf('--')
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')
}

/** Parses one command's arguments; every problem is a usage error naming the flag or argument. */
export function parseCommand(cmd: Command, argv: string[]): Parsed {
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: argv, options: cmd.options, allowPositionals: true, strict: true })
  } catch (e) {
    throw usageError(describeParseError(e as Error & { code?: string }))
  }
  const names = cmd.positionals ?? []
  const given = parsed.positionals
  const needed = names.filter((n) => !n.endsWith('?')).length
  if (given.length < needed) throw usageError(`missing ${names.slice(given.length, needed).join(' ')}`)
  if (given.length > names.length) throw usageError(`unexpected argument ${JSON.stringify(given[names.length])}`)
  return { values: parsed.values as Values, positionals: given }
}

function describeParseError(e: Error & { code?: string }): string {
  // parseArgs's own messages are long and shaped for library users; the option is what matters.
  const option = /'(-[^' ]+)/.exec(e.message)?.[1]
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    return /argument missing/.test(e.message) ? `${option} needs a value` : `${option} takes no value`
  }
  return e.message
}

export function required(values: Values, name: string, what: string): string {
  const v = values[name]
  if (typeof v !== 'string' || v === '') throw usageError(`--${name} is required (${what})`)
  return v
}

export function optionalString(values: Values, name: string): string | undefined {
  const v = values[name]
  return typeof v === 'string' ? v : undefined
}

export function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw usageError(`${name} must be ${allowed.join(' or ')}, not ${JSON.stringify(value)}`)
  return value as T
}

export function integer(value: string, name: string, min: number, max: number): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min || n > max) throw usageError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`)
  return n
}

/** An id given as a positional or flag, checked for its prefix so a swapped argument is caught here, not as a 404. */
export function id(value: string, prefix: string, what: string): string {
  if (value.startsWith(`${prefix}_`)) return value
  // A secret pasted where its id belongs is not echoed back into the terminal's scrollback.
  const shown = /^(sk_|whsec_)/.test(value) ? 'a secret' : JSON.stringify(value)
  throw usageError(`${what} must be an id starting with ${prefix}_, not ${shown}`)
}

/**
 * The contents of FILE, or of stdin for `-`: how secrets (provider credentials, a console
 * password) reach `till` without appearing on its command line, where they would stay in the shell
 * history and be visible to every user through `ps`.
 */
export async function readSecretInput(source: string, flag: string): Promise<string> {
  if (source === '-') {
    if (process.stdin.isTTY) throw usageError(`${flag} -: pipe the value into stdin (e.g. < file), or give a file name`)
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  try {
    return await readFile(source, 'utf8')
  } catch (e) {
    throw usageError(`${flag}: cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
}
