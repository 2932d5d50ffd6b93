import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Whether a server-side request may connect to an address: the one rule every outbound fetch
 * (webhooks today) applies to each address a host name resolves to, at connect time.
 *
 * The ranges are ipaddr.js's (IANA's special-purpose registries), not a list of our own. Only
 * global unicast passes: IPv4 `unicast`, IPv6 `unicast` inside 2000::/3. Addresses that carry an
 * IPv4 address inside (IPv4-mapped, IPv4-translated, NAT64, 6to4) are judged by the IPv4 address
 * they lead to, so `[::ffff:127.0.0.1]`, `[64:ff9b::a00:1]` and `[2002:7f00:1::]` are loopback or
 * private like the address they embed. Deprecated or local-only tunnels (IPv4-compatible `::a.b.c.d`,
 * Teredo, local-use NAT64 64:ff9b:1::/48) are refused whatever they embed.
 */
export interface AddressClass {
  /** The range that decided: an ipaddr.js range name, `ipv4Compatible`, `nonGlobal` or `invalid`. */
  readonly range: string
  /** For an address judged by the IPv4 address it embeds, that address. */
  readonly ipv4?: string
  readonly public: boolean
}

const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::')
const LOCAL_USE_NAT64 = ipaddr.IPv6.parse('64:ff9b:1::')
const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::')

function classifyIPv4(address: ipaddr.IPv4, via?: string): AddressClass {
  const range = address.range()
  const ipv4 = via === undefined ? undefined : address.toString()
  return { range: via === undefined ? range : `${via}:${range}`, ...(ipv4 && { ipv4 }), public: range === 'unicast' }
}

/** The IPv4 address in bits `from`..`from + 31` of an IPv6 address. */
const embedded = (address: ipaddr.IPv6, from: number) => new ipaddr.IPv4(address.toByteArray().slice(from / 8, from / 8 + 4))

/**
 * The address in hexadecimal groups, without a zone. ipaddr.js reads a dotted tail as IPv4-mapped
 * whatever precedes it (`::127.0.0.1` would become `::ffff:7f00:1`); the URL parser keeps the bits.
 */
const canonicalIPv6 = (raw: string) => new URL(`http://[${raw.replace(/%.*$/, '')}]/`).hostname.slice(1, -1)

export function classifyAddress(raw: string): AddressClass {
  const family = isIP(raw)
  // Only what node:net takes for an address: ipaddr.js alone would also read `127.1` or `0x7f.1`.
  if (family === 0) return { range: 'invalid', public: false }
  if (family === 4) return classifyIPv4(ipaddr.IPv4.parse(raw))
  const address = ipaddr.IPv6.parse(canonicalIPv6(raw))
  const range = address.range()
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return classifyIPv4(embedded(address, 96), range)
    case 'rfc6052':
      if (address.match(LOCAL_USE_NAT64, 48)) return { range, public: false }
      return classifyIPv4(embedded(address, 96), range)
    case '6to4':
      return classifyIPv4(embedded(address, 16), range)
    case 'unicast':
      if (address.match(IPV4_COMPATIBLE, 96)) return { range: 'ipv4Compatible', public: false }
      if (!address.match(GLOBAL_UNICAST, 3)) return { range: 'nonGlobal', public: false }
      return { range, public: true }
    default:
      return { range, public: false }
  }
}

/** Whether a request may reach this address (see classifyAddress). */
export const isPublicAddress = (address: string): boolean => classifyAddress(address).public

/** Why an address is refused, for a log line or an error message: `2002:7f00:1:: (6to4:loopback, 127.0.0.1)`. */
export const describeAddress = (address: string): string => {
  const c = classifyAddress(address)
  return `${address} (${c.range}${c.ipv4 === undefined ? '' : `, ${c.ipv4}`})`
}
