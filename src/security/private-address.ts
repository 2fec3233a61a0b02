/**
 * What an address is, for the SSRF guard (after documenso's is-private-url): only public addresses
 * are dialled unless the operator allows the rest (security/guarded-agent.ts). The guard checks the
 * address actually dialled, after DNS; `hostKind` reads a host before DNS, for checks on save.
 */
import { BlockList, isIP } from 'node:net'

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved'

const RANGES: Record<Exclude<AddressKind, 'public'>, [string, number][]> = {
  loopback: [['127.0.0.0', 8], ['::1', 128]],
  private: [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['fc00::', 7]],
  'link-local': [['169.254.0.0', 16], ['fe80::', 10]],
  // "This network" (0.0.0.0 reaches the local host on Linux), documentation, benchmarking, multicast, future use.
  reserved: [
    ['0.0.0.0', 8], ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
    ['224.0.0.0', 4], ['240.0.0.0', 4], ['::', 128], ['ff00::', 8], ['2001:db8::', 32], ['fec0::', 10],
  ],
}

const LISTS = Object.entries(RANGES).map(([kind, ranges]) => {
  const list = new BlockList()
  for (const [net, prefix] of ranges) list.addSubnet(net, prefix, isIP(net) === 6 ? 'ipv6' : 'ipv4')
  return [kind as AddressKind, list] as const
})

/** The eight 16-bit groups of an IPv6 address (which may end in a dotted IPv4). */
export function ipv6Groups(ip: string): number[] {
  let text = ip.split('%')[0]
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number)
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const h = head ? head.split(':') : []
  const t = tail !== undefined && tail !== '' ? tail.split(':') : []
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0')
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16))
}

/**
 * An IPv4 address carried inside an IPv6 one: mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d,
 * ::/96, which Linux still routes to the IPv4 host), NAT64 (64:ff9b::/96) or 6to4 (2002::/16).
 * `::` and `::1` are the IPv6 unspecified and loopback addresses, classed by the IPv6 ranges.
 */
function embeddedIPv4(ip: string): string | null {
  const g = ipv6Groups(ip)
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4(g[6], g[7])
  if (g.slice(0, 6).every((x) => x === 0) && !(g[6] === 0 && g[7] <= 1)) return v4(g[6], g[7])
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(g[6], g[7])
  if (g[0] === 0x2002) return v4(g[1], g[2])
  return null
}

export function classifyAddress(ip: string): AddressKind {
  const family = isIP(ip)
  if (family === 0) throw new Error(`not an IP address: ${ip}`)
  if (family === 6) {
    const inner = embeddedIPv4(ip)
    if (inner) return classifyAddress(inner)
  }
  for (const [kind, list] of LISTS) if (list.check(ip, family === 6 ? 'ipv6' : 'ipv4')) return kind
  return 'public'
}

/** Names for this machine: `localhost` and its subdomains (RFC 6761), and the aliases /etc/hosts files carry. */
const LOOPBACK_NAMES = /^(?:(?:.+\.)?localhost|localhost6|localhost\.localdomain|localhost6\.localdomain6|ip6-localhost|ip6-loopback)$/

/**
 * What a host names before any DNS: an address's kind, `loopback` for this machine's names, or null
 * for any other name (only its resolved address can tell). The host is read as the WHATWG URL
 * parser reads it (IPv4 in any notation, case, %-escapes, full-width letters), less trailing dots.
 * A URL's hostname or a listen address (`::1`, `localhost`, `0.0.0.0`).
 */
export function hostKind(host: string): AddressKind | null {
  const bare = host.replace(/^\[(.*)\]$/, '$1')
  let name: string
  try {
    name = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname
  } catch {
    return null
  }
  name = name.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '')
  if (isIP(name)) return classifyAddress(name)
  return LOOPBACK_NAMES.test(name) ? 'loopback' : null
}
