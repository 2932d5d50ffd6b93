import { lookup as dnsLookup } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { describeAddress, isPublicAddress } from '../shared/outbound-address.js'

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
        const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address))
        if (addresses.length === 0) return callback(new Error(`${host} has no address`), '', 0)
        if (refused)
          return callback(new PrivateAddressError(`${host} resolves to ${describeAddress(refused.address)}, a private, loopback or link-local address`), '', 0)
        if (all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, addresses)
        const first = addresses[0] as { address: string; family: number }
        callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
