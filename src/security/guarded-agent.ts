/**
 * An undici Agent that dials only public addresses unless the operator allows the others: the name is
 * resolved, the address checked, then pinned, so a name cannot resolve one way for the check and
 * another for the connection. Webhook deliveries and every provider call (settings.apiBase, the
 * WeChat OAuth exchange) go through one.
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { ConnectionOptions } from 'node:tls'
import { Agent, buildConnector } from 'undici'
import { classifyAddress } from './private-address.js'

/** Names the rule, never what the name resolved to: the text reaches merchants (the delivery log). */
export class RefusedAddress extends Error {
  constructor(host: string, flag: string) {
    super(`refused to connect to ${host}: not a public address (loopback, private, link-local and reserved addresses need ${flag}=1)`)
  }
}

/** Every address a host name resolves to (node:dns by default; tests inject their own). */
export type Resolve = (host: string) => Promise<{ address: string }[]>
const systemResolve: Resolve = (host) => lookup(host, { all: true })

/** Where a refusal's detail goes: the server log, never the refusal's text. */
export type RefusalLog = (detail: { host: string; addresses?: string[]; error?: string }, message: string) => void

/**
 * Resolves the host once and returns the first address the rule allows, or throws naming the rule.
 * While the rule holds, a name that does not resolve is refused with the same words as one resolving
 * to a private address: otherwise the difference would tell a merchant which internal names exist.
 */
async function allowedAddress(host: string, allowPrivate: boolean, flag: string, resolve: Resolve, log?: RefusalLog): Promise<string> {
  let found: { address: string }[]
  try {
    found = isIP(host) ? [{ address: host }] : await resolve(host)
  } catch (e) {
    if (allowPrivate) throw e
    log?.({ host, error: (e as Error).message }, 'refused to connect: the name did not resolve')
    throw new RefusedAddress(host, flag)
  }
  const ok = found.find((a) => allowPrivate || classifyAddress(a.address) === 'public')
  if (ok) return ok.address
  if (found.length === 0 && allowPrivate) throw new Error(`${host} resolved to no address`)
  log?.({ host, addresses: found.map((a) => a.address) }, 'refused to connect: no public address')
  throw new RefusedAddress(host, flag)
}

export interface GuardOptions {
  /** Whether addresses other than public ones may be dialled now (the operator's setting, read per connection). */
  allowPrivate(): boolean
  /** That setting's name, given in the refusal. */
  flag: string
  timeoutMs: number
  keepAliveTimeout: number
  headersTimeout?: number
  bodyTimeout?: number
  tls?: ConnectionOptions
  /** The resolver; the connection is dialled to the address it returned and the rule allowed, never resolved again. */
  lookup?: Resolve
  /** Where a refusal's detail (what the name resolved to, or why not) is logged. */
  log?: RefusalLog
  /** What dials the checked address (tests watch it); undici's connector by default. */
  dial?: buildConnector.connector
}

export function guardedAgent(o: GuardOptions): Agent {
  const base = o.dial ?? buildConnector({ timeout: o.timeoutMs, ...o.tls })
  const connect: buildConnector.connector = (opts, cb) => {
    // The certificate is still checked against the name: TLS takes it from `host`, we only pin the address.
    allowedAddress(opts.hostname, o.allowPrivate(), o.flag, o.lookup ?? systemResolve, o.log).then(
      (address) => base({ ...opts, hostname: address }, cb),
      (err: Error) => cb(err, null),
    )
  }
  return new Agent({ connect, headersTimeout: o.headersTimeout, bodyTimeout: o.bodyTimeout, keepAliveTimeout: o.keepAliveTimeout })
}
