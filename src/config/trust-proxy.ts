import proxyAddr from '@fastify/proxy-addr'
import type { TrustProxy } from '../http/client-address.js'

/**
 * LINKLINE_TRUST_PROXY: `false` (the default), `true` (one proxy in front: the same as `1`), a number
 * of hops, or a comma-separated list of proxy addresses and CIDR ranges (`10.0.0.0/8, loopback`).
 */
export function parseTrustProxy(raw: string, problems: string[]): TrustProxy {
  if (['false', 'no', '0'].includes(raw)) return false
  if (['true', 'yes'].includes(raw)) return 1
  if (/^\d{1,2}$/.test(raw)) return Number(raw)
  const list = raw
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
  try {
    proxyAddr.compile(list)
    return Object.freeze(list)
  } catch {
    problems.push(`LINKLINE_TRUST_PROXY must be true, false, a number of hops or a list of addresses / CIDR ranges (got "${raw}")`)
    return false
  }
}
