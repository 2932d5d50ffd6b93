import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DomainsService } from '../domains/domains.service.js'
import type { App } from '../http/types.js'
import { notFound } from '../shared/errors.js'

/** Where `npm run build` puts the dashboard (vite, web/vite.config.ts): dist/web beside dist/src. */
export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url))

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
}

/**
 * Nothing runs in the dashboard but its own bundled scripts; it talks only to this origin; images
 * are this origin's (QR codes) or made in the page (blob: for downloads, data: for the few icons).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const gzipAsync = promisify(gzip)

interface Asset {
  body: Buffer
  /** Whether a gzipped copy pays (text, over 1 KiB). */
  compressible: boolean
  /**
   * The gzipped copy, made at the first request that accepts it, off the event loop: at load time it
   * cost every start ~35 ms of CPU (level 9 over the whole bundle), pages nobody may ever ask for.
   */
  gzip?: Promise<Buffer>
  type: string
  /** Hashed file names never change content: cached for a year. index.html is revalidated every time. */
  immutable: boolean
}

/** Reads the built dashboard once, into memory (a few hundred KiB at most). */
function loadAssets(root: string, page: (html: string) => string): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  if (!existsSync(root)) return assets
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) {
        walk(full, `${prefix}${name}/`)
        continue
      }
      const body = prefix === '' && name === 'index.html' ? Buffer.from(page(readFileSync(full, 'utf8'))) : readFileSync(full)
      const type = TYPES[extname(name)] ?? 'application/octet-stream'
      const compressible = /^(text|application\/json|image\/svg)/.test(type) && body.length > 1024
      assets.set(`${prefix}${name}`, { body, compressible, type, immutable: prefix.startsWith('assets/') })
    }
  }
  walk(root, '')
  return assets
}

/** The pages one-time links open (invitations, password resets), by their secret. */
const ONE_TIME_LINK = /^(invite|reset)\/[^/]+$/

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head><body>' +
  '<h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (it builds <code>dist/web</code>), then restart. ' +
  'The API and its <a href="/docs/">reference</a> work without it.</p></body></html>'

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')

/** How people sign in, as the sign-in page offers it: single sign-on (named) and email with password. */
export interface SignInOptions {
  /** The identity provider's name on the "Sign in with …" button; null: no single sign-on. */
  ssoName: string | null
  password: boolean
}

/**
 * The page names the bootstrap workspace, so that the sign-in form can say which `--owner` makes a
 * token for it (the first start printed one for that workspace), and the ways people sign in. Meta
 * tags, not an inline script: the page runs under script-src 'self'.
 */
export const dashboardPage =
  ({ bootstrapWorkspace, signIn }: { bootstrapWorkspace: string; signIn: SignInOptions }) =>
  (html: string) => {
    const meta = (name: string, content: string) => `<meta name="${name}" content="${escapeAttribute(content)}">`
    const tags = [
      meta('linkline-bootstrap-workspace', bootstrapWorkspace),
      meta('linkline-password-sign-in', signIn.password ? 'on' : 'off'),
      ...(signIn.ssoName === null ? [] : [meta('linkline-sso', signIn.ssoName)]),
    ]
    return html.replace('<meta charset="utf-8">', `<meta charset="utf-8">${tags.join('')}`)
  }

/**
 * The web dashboard (docs/api/sessions-and-dashboard.md#the-dashboard) under `/app`, on default domains, and `/` sending a person there (or
 * to LINKLINE_ROOT_URL). Paths under `/app` that are not files are the dashboard's own pages (also
 * those one-time links open: `/app/setup?code=…`, `/app/invite/<secret>`, `/app/reset/<secret>`):
 * they get index.html, whose script routes them.
 */
export function dashboardRoutes(
  app: App,
  deps: { rootUrl: string | undefined; domains: DomainsService; bootstrapWorkspace: string; signIn: SignInOptions; webRoot?: string },
): void {
  const assets = loadAssets(deps.webRoot ?? WEB_ROOT, dashboardPage(deps))
  const onDefaultDomain = (req: FastifyRequest) => deps.domains.isDefault(deps.domains.effectiveHost(req.host.toLowerCase()))

  const send = async (req: FastifyRequest, reply: FastifyReply, asset: Asset) => {
    reply
      .header('Content-Type', asset.type)
      .header('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('Content-Security-Policy', DASHBOARD_CSP)
      .header('Referrer-Policy', 'same-origin')
      .header('Cross-Origin-Opener-Policy', 'same-origin')
      .header('Vary', 'Accept-Encoding')
    if (asset.compressible && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      asset.gzip ??= gzipAsync(asset.body, { level: 9 })
      return reply.header('Content-Encoding', 'gzip').send(await asset.gzip)
    }
    return reply.send(asset.body)
  }

  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.header('Cache-Control', 'no-store').redirect(deps.rootUrl ?? '/app/', 302))

  app.get('/app', { schema: { hide: true } }, async (req, reply) => {
    if (!onDefaultDomain(req)) throw notFound('route')
    return reply.redirect('/app/', 301)
  })

  app.get('/app/*', { schema: { hide: true } }, async (req, reply) => {
    if (!onDefaultDomain(req)) throw notFound('route')
    const rest = (req.params as { '*': string })['*']
    const file = assets.get(rest)
    if (file) return send(req, reply, file)
    // A missing hashed file is a 404, never the page: a script tag must not receive HTML. A one-time
    // link's secret is a page whatever characters it holds.
    if (!ONE_TIME_LINK.test(rest) && (rest.startsWith('assets/') || extname(rest) !== '')) throw notFound('file')
    const index = assets.get('index.html')
    if (!index) return reply.code(503).header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-store').send(NOT_BUILT_PAGE)
    return send(req, reply, index)
  })
}
