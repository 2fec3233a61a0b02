/**
 * An undici Agent that dials only addresses an SSRF rule allows: the name is resolved, the address
 * checked, then pinned, so a name cannot resolve one way for the check and another for the connection.
 * Webhook deliveries and provider API calls (settings.apiBase) both go through one.
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { ConnectionOptions } from 'node:tls'
import { Agent, buildConnector } from 'undici'
import { classifyAddress, type AddressKind } from './private-address.js'

export class RefusedAddress extends Error {
  constructor(host: string, address: string, kind: string, flag: string) {
    super(`refused to connect to ${host} (${address}, a ${kind} address): set ${flag}=1 to allow it`)
  }
}

/** Every address a host name resolves to (node:dns by default; tests inject their own). */
export type Resolve = (host: string) => Promise<{ address: string }[]>
const systemResolve: Resolve = (host) => lookup(host, { all: true })

/** Resolves the host once and returns the first address the rule allows, or throws naming what it found. */
async function allowedAddress(host: string, allow: (kind: AddressKind) => boolean, flag: string, resolve: Resolve): Promise<string> {
  const found = isIP(host) ? [{ address: host }] : await resolve(host)
  if (found.length === 0) throw new Error(`${host} resolved to no address`)
  const ok = found.find((a) => allow(classifyAddress(a.address)))
  if (ok) return ok.address
  throw new RefusedAddress(host, found[0].address, classifyAddress(found[0].address), flag)
}

export interface GuardOptions {
  /** Which kinds of address may be dialled. */
  allow(kind: AddressKind): boolean
  /** The operator setting that lifts the rule, named in the refusal. */
  flag: string
  timeoutMs: number
  keepAliveTimeout: number
  headersTimeout?: number
  bodyTimeout?: number
  tls?: ConnectionOptions
  /** The resolver; the connection is dialled to the address it returned and the rule allowed, never resolved again. */
  lookup?: Resolve
}

export function guardedAgent(o: GuardOptions): Agent {
  const base = buildConnector({ timeout: o.timeoutMs, ...o.tls })
  const connect: buildConnector.connector = (opts, cb) => {
    // The certificate is still checked against the name: TLS takes it from `host`, we only pin the address.
    allowedAddress(opts.hostname, o.allow, o.flag, o.lookup ?? systemResolve).then(
      (address) => base({ ...opts, hostname: address }, cb),
      (err: Error) => cb(err, null),
    )
  }
  return new Agent({ connect, headersTimeout: o.headersTimeout, bodyTimeout: o.bodyTimeout, keepAliveTimeout: o.keepAliveTimeout })
}
