import { domainToASCII } from 'node:url'

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`)
const IPV6 = /^\[[0-9a-f:.]+\]$/
const NAME_CHARACTERS = /^[a-z0-9.\-\u0080-\u{10ffff}]+$/u

/**
 * A short domain as Linkline stores it and matches the `Host` header against: `host` or `host:port`,
 * lower-cased, international names in punycode. Returns undefined for anything else — a scheme, a
 * path, user info, a port outside 1–65535 — which would otherwise end up inside every short URL.
 */
export function normalizeHostAndPort(raw: string): string | undefined {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(raw.trim().toLowerCase())
  if (!match) return undefined
  const [, rawHost, port] = match as unknown as [string, string, string | undefined]
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined
  // domainToASCII cuts at '/', '?' or '#' instead of failing: only letters, digits, '-' and '.' go in.
  if (!rawHost.startsWith('[') && !NAME_CHARACTERS.test(rawHost)) return undefined
  const host = rawHost.startsWith('[') ? rawHost : domainToASCII(rawHost)
  if (!(IPV6.test(host) || HOST_NAME.test(host))) return undefined
  return port === undefined ? host : `${host}:${port}`
}
