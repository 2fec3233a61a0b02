/**
 * The network a client address stands for when counting its failed sign-ins: an IPv6 host usually
 * holds a whole /64 (it can change its address within it at will), so the /64 is one client;
 * an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, a dual-stack socket's IPv4 peer) is that IPv4 address.
 */
import { isIP } from 'node:net'
import { ipv6Groups } from './private-address.js'

export function clientNetwork(ip: string): string {
  if (isIP(ip) !== 6) return ip
  const g = ipv6Groups(ip)
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`
}
