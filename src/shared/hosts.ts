import { isIP } from 'node:net'

/** A host as a browser would send it in `Host`: lower case, IDN in punycode, default ports dropped. */
export interface HostName {
  /** `hostname[:port]`, the form stored and matched against `Host`. */
  readonly host: string
  readonly hostname: string
  /** '' when none (or a default port, :80 or :443). */
  readonly port: string
}

// Characters that would make `new URL('http://' + raw)` read a path, query, fragment, credentials or
// percent-escapes rather than a host: a name holding one is not a host name, whatever the parser makes of it.
const NOT_A_HOST = /[/?#@\\%\s]/
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Parses `host[:port]` with the WHATWG URL parser, the one browsers use to turn a link into a `Host`
 * header: it lower-cases, turns IDN into punycode, and turns numeric forms (`2130706433`, `0x7f.1`)
 * into the dotted IPv4 they mean. Undefined when the parser refuses it.
 */
export function parseHost(raw: string): HostName | undefined {
  if (raw === '' || NOT_A_HOST.test(raw)) return undefined
  let url: URL
  try {
    url = new URL(`http://${raw}`)
  } catch {
    return undefined
  }
  if (url.pathname !== '/' || url.port === '0') return undefined
  const port = url.port === '443' ? '' : url.port
  return { host: port === '' ? url.hostname : `${url.hostname}:${port}`, hostname: url.hostname, port }
}

/** An IPv4 (after the parser's normalisation) or bracketed IPv6 literal. */
export const isIpLiteral = (hostname: string): boolean => hostname.startsWith('[') || isIP(hostname) !== 0

/** A host name of letter-digit-hyphen labels (`localhost` included), at most 253 characters. */
export const isHostName = (hostname: string): boolean => hostname.length <= 253 && hostname.split('.').every((label) => LABEL.test(label))

/** A DNS name under which a TXT record can be published: two or more labels, the last not all digits. */
export const isDnsName = (hostname: string): boolean =>
  isHostName(hostname) && hostname.includes('.') && !/^\d+$/.test(hostname.slice(hostname.lastIndexOf('.') + 1))

/** 127.0.0.0/8, ::1 and `localhost`: the names by which the service reaches itself on its own machine. */
export const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || (isIP(hostname) === 4 && hostname.startsWith('127.'))

/**
 * A short domain as Linkline stores it and matches the `Host` header against: `host` or `host:port`
 * as `parseHost` reads it, the host an IP literal or a host name. Undefined for anything else (a
 * scheme, a path, user info, a port outside 1–65535), which would otherwise end up in every short URL.
 */
export function normalizeHostAndPort(raw: string): string | undefined {
  const trimmed = raw.trim()
  const parsed = trimmed.endsWith(':') ? undefined : parseHost(trimmed)
  if (parsed === undefined) return undefined
  return isIpLiteral(parsed.hostname) || isHostName(parsed.hostname) ? parsed.host : undefined
}
