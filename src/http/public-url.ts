import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.js'

type Settings = Pick<Config, 'host' | 'port'>

/**
 * Where people reach this server, when configured (LINKLINE_PUBLIC_URL), without a trailing slash. Read
 * as an optional field so that this is the one place to change should the setting be named otherwise.
 */
export function configuredPublicUrl(config: Settings): string | undefined {
  const url = (config as Settings & { readonly publicUrl?: string }).publicUrl
  return url?.replace(/\/+$/, '')
}

/**
 * The root of the links this server hands out to people (invitations, password resets): the public
 * URL when configured, else the scheme and host this request came to (as a trusted proxy tells them).
 */
export function publicBaseUrl(req: FastifyRequest, config: Settings): string {
  return configuredPublicUrl(config) ?? `${req.protocol}://${req.host}`
}

/**
 * The same root where no request is at hand (the command line): the public URL, else the address the
 * server listens on (`localhost` for every interface), which may reach only this machine.
 */
export function listenBaseUrl(config: Settings): { url: string; configured: boolean } {
  const configured = configuredPublicUrl(config)
  if (configured !== undefined) return { url: configured, configured: true }
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`, configured: false }
}
