import { lookup as dnsLookup } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { describeAddress } from '../shared/outbound-address.js'

/** Resolves a host name to every address it has (what a connection may end up at). */
export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>

export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))))

/** A connection refused because of the address it would reach (outbound.ts reports it as `private_address`). */
export class PrivateAddressError extends Error {
  readonly code = 'EOUTBOUNDPRIVATE'
}

/** The message for a refused address: `2002:7f00:1:: (6to4:loopback, 127.0.0.1), a private, loopback or link-local address`. */
export const refusedAddress = (address: string): string => `${describeAddress(address)}, a private, loopback or link-local address`

/**
 * A `lookup` for http.request that refuses a host resolving to a private address at connect time:
 * the check at creation alone would not stop a name that resolves elsewhere later (DNS rebinding).
 * Every redirect hop connects through it again.
 */
export function guardedLookup(resolve: Resolve, allowed: (address: string) => boolean): LookupFunction {
  return (host, options, callback) => {
    const all = typeof options === 'object' && options.all === true
    resolve(host).then(
      (addresses) => {
        const refused = addresses.find((a) => !allowed(a.address))
        if (addresses.length === 0) return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), '', 0)
        if (refused) return callback(new PrivateAddressError(`${host} resolves to ${refusedAddress(refused.address)}`), '', 0)
        if (all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, addresses)
        const first = addresses[0] as { address: string; family: number }
        callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
