import type { InvalidationBus } from './cache.js'

/** The bus of a single instance: there is no one else to tell, and nothing is ever missed. */
export function createMemoryInvalidationBus(): InvalidationBus {
  return {
    publishLink: async () => {},
    publishDomainsChanged: async () => {},
    subscribe: () => {},
    close: async () => {},
  }
}
