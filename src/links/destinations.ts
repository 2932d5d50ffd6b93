import type { DomainsService } from '../domains/domains.service.js'
import { destinationChainTooLong, destinationControlCharacter, destinationLoops, destinationTooLong, invalidDestination } from './links.errors.js'
import type { LinksRepository } from './links.repository.js'

// eslint-disable-next-line no-control-regex -- the control characters are what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/
/** Percent-encoding can triple a 2048-character input; beyond this, no browser or server takes the URL. */
const MAX_SERIALIZED_DESTINATION = 8192
/** Most short links of this service a destination may go through before it leaves the service. */
const MAX_CHAIN_HOPS = 5

/**
 * The destination as stored, returned and sent in `Location`: its WHATWG serialization, which
 * percent-encodes what a header cannot carry and writes the host in punycode (docs/api/links.md#rules-for-fields). Control
 * characters are refused rather than cleaned: the URL parser would drop tabs and newlines silently.
 */
export function normalizeDestination(destination: string, param = 'destination'): string {
  if (CONTROL_CHARACTER.test(destination)) throw destinationControlCharacter(param)
  let url: URL
  try {
    url = new URL(destination)
  } catch {
    throw invalidDestination(param)
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw invalidDestination(param)
  if (url.href.length > MAX_SERIALIZED_DESTINATION) throw destinationTooLong(MAX_SERIALIZED_DESTINATION, param)
  return url.href
}

/** A check of where a normalized destination leads through this service's own short links. */
type ChainCheck = (destination: string, domain: string, path: string, id?: string, param?: string) => Promise<void>

/**
 * Follows the destination through this service's own short links (on any of its names: default and
 * custom domains, reserved hosts, loopback aliases) as the redirect would, and refuses a chain that
 * comes back to the link being saved (`id`, at `domain` + `path`) or that does not leave the service
 * within MAX_CHAIN_HOPS. Called after normalizeDestination, which has parsed the URL once already.
 */
export function createChainCheck(deps: { domains: Pick<DomainsService, 'servedDomain'>; repo: Pick<LinksRepository, 'findTarget'> }): ChainCheck {
  return async function checkRedirectChain(destination, domain, path, id, param = 'destination') {
    let next = destination
    for (let hop = 0; hop < MAX_CHAIN_HOPS; hop++) {
      const url = new URL(next)
      const served = deps.domains.servedDomain(url.host)
      if (served === undefined) return
      const hopPath = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname
      if (served === domain && hopPath === path) throw destinationLoops(param)
      const target = await deps.repo.findTarget(served, hopPath)
      // The link's own old place (it is moving away) ends the chain: after the update nothing is there.
      if (target === undefined || target.id === id) return
      next = target.destination
    }
    throw destinationChainTooLong(MAX_CHAIN_HOPS, param)
  }
}
