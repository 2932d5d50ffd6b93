import { lookup as dnsLookup } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Addresses a webhook may not reach unless LINKLINE_WEBHOOKS_ALLOW_PRIVATE=true: loopback, private,
 * link-local, carrier-grade NAT, unspecified, multicast and reserved ranges, IPv4 and IPv6 (an
 * IPv4-mapped IPv6 address is judged as its IPv4 address).
 */
const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6')
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blocked.check(mapped[1] as string, 'ipv4')
  const family = isIP(address)
  if (family === 0) return true
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** Resolves a host name to every address it has (what a connection may end up at). */
export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>

export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))))

export class PrivateAddressError extends Error {
  readonly code = 'EWEBHOOKPRIVATE'
}

/**
 * A `lookup` for http.request that refuses a host resolving to a private address at connect time:
 * the check at creation alone would not stop a name that resolves elsewhere later (DNS rebinding).
 */
export function guardedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (host, options, callback) => {
    const all = typeof options === 'object' && options.all === true
    resolve(host).then(
      (addresses) => {
        const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address))
        if (addresses.length === 0) return callback(new Error(`${host} has no address`), '', 0)
        if (refused) return callback(new PrivateAddressError(`${host} resolves to ${refused.address}, a private, loopback or link-local address`), '', 0)
        if (all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, addresses)
        const first = addresses[0] as { address: string; family: number }
        callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
