import type { IncomingMessage } from 'node:http'
import { isIPv4, isIPv6 } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import type { FastifyRequest } from 'fastify'

/** Which proxies in front are trusted: none, the nearest `n` hops, or these addresses and CIDR ranges. */
export type TrustProxy = false | number | readonly string[]

export type TrustFunction = (address: string, hop: number) => boolean

/**
 * The one trust rule, given both to Fastify (`trustProxy`, so `req.ip`) and to the redirect (the visitor
 * key), so the two never disagree. Walking X-Forwarded-For from the right, the client is the first hop
 * that is not trusted: the left-most entries are whatever the client chose to send.
 */
export function compileTrust(trust: TrustProxy): TrustFunction {
  if (trust === false) return () => false
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return proxyAddr.compile([...trust])
}

/** The client's address under `trust`: the socket's own when no proxy is trusted. */
export function clientAddress(req: IncomingMessage, trust: TrustFunction): string | undefined {
  if (req.headers['x-forwarded-for'] === undefined) return req.socket.remoteAddress
  return proxyAddr(req, trust)
}

/**
 * The unit a per-client limit counts: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or the /64
 * of an IPv6 address, which one subscriber usually holds whole (as `2001:db8:0:1::/64`).
 */
export function clientBlock(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped) return mapped[1] as string
  const address = ip.split('%')[0] as string
  if (!isIPv6(address)) return ip
  const [head = '', tail] = address.split('::')
  const groups = head === '' ? [] : head.split(':')
  if (tail !== undefined) {
    const rest = tail === '' ? [] : tail.split(':')
    // An embedded IPv4 address at the end stands for two groups.
    const restGroups = rest.length + (rest.at(-1)?.includes('.') ? 1 : 0)
    while (groups.length < 8 - restGroups) groups.push('0')
    groups.push(...rest)
  }
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`
}

/** An address cut to its network (/24, /48): enough to read traffic in logs, not to name a person. */
export function truncateAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  const v4 = mapped ? (mapped[1] as string) : ip
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`
  if (!isIPv6(ip)) return 'unknown'
  const [head = ''] = ip.split('::')
  const groups = head === '' ? [] : head.split(':')
  // Groups left out by `::` are zeros; only the first three matter.
  while (groups.length < 3) groups.push('0')
  return `${groups.slice(0, 3).join(':')}::/48`
}

/**
 * A request target without the one-time secrets the dashboard's pages carry (an invitation, a password
 * reset, the setup code): whoever reads the logs must not be able to use a pending link.
 */
export const withoutSecrets = (url: string): string =>
  url.replace(/^(\/app\/(?:invite|reset)\/)[^/?#]+/i, '$1…').replace(/^(\/app\/setup\?(?:[^#]*&)?code=)[^&#]*/i, '$1…')

/** The `req` of request logs: Fastify's fields, with the address truncated unless debugging, and no one-time secret. */
export function requestLogSerializer(fullAddresses: boolean) {
  return (req: FastifyRequest) => ({
    method: req.method,
    url: withoutSecrets(req.url),
    host: req.host,
    remoteAddress: fullAddresses ? req.ip : truncateAddress(req.ip),
  })
}
