import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { ErrorBody } from '../shared/schema.js'
import { VERSION } from '../shared/version.js'
import type { App } from './types.js'

const TITLE = 'Linkline API'
// The reference's top bar carries the framework's logo and a box to load any other document: ours has no use for either.
const THEME_CSS = '.swagger-ui .topbar { display: none }'
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4f8f"/><path d="M5 3v10h7v-2H7V3z" fill="#fff"/></svg>'

/**
 * A stable operationId from the method and the URL, for client generators and deep links:
 * GET /v1/links/:id/stats → getLinksByIdStats, DELETE /v1/domains/:name → deleteDomainsByName.
 */
export function operationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((s) => s !== '' && s !== 'v1')
    .map((segment) => {
      const param = /^(?::|\{)(\w+)\}?$/.exec(segment)?.[1]
      return param === undefined ? segment : `by_${param}`
    })
  const camel = words.join('_').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())
  return `${method.toLowerCase()}${camel.charAt(0).toUpperCase()}${camel.slice(1)}`
}

/**
 * An operation's description with what it takes to call it, read from the route's own settings
 * (the scope that auth.ts checks, the audit declaration), so that the reference cannot drift from them.
 */
function withAccess(description: string, config: unknown): string {
  const { scope, audit } = (config ?? {}) as { scope?: string; audit?: unknown }
  const access = scope === undefined ? [] : [`Needs the \`${scope}\` scope (a token's, or the signed-in member's role).`]
  // `{ skip: why }` declares a route that records nothing itself.
  if (audit !== undefined && !(typeof audit === 'object' && audit !== null && 'skip' in audit)) access.push('Recorded in the audit log.')
  return access.length === 0 ? description : `${description}\n\n${access.join(' ')}`
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A body taken as raw bytes (an uploaded image), described here for the OpenAPI document only: a
     * `schema.body` would have Fastify validate it as JSON.
     */
    rawBody?: { readonly contentTypes: readonly string[]; readonly description: string }
  }
}

/**
 * The OpenAPI 3.1 document is generated from the very schemas that validate requests; it is served
 * at /v1/openapi.json (no token needed) with an interactive reference at /docs.
 */
export async function registerOpenApi(app: App, schemas: object[]): Promise<void> {
  app.addSchema(ErrorBody)
  for (const schema of schemas) app.addSchema(schema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: TITLE,
        version: VERSION,
        description:
          'Short links with redirects, QR codes and click statistics, and conversations. Errors use one shape: {success:false, error:{code, message, param}}.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'linkline_session',
            description: "the dashboard's session (POST /v1/sessions); a request that changes state must also send an Origin of this host",
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const raw = route.config?.rawBody
      return {
        schema: {
          ...schema,
          operationId: operationId(String(route.method), url),
          ...(schema.description !== undefined && { description: withAccess(schema.description, route.config) }),
          ...(raw && { consumes: raw.contentTypes, body: { type: 'string', format: 'binary', description: raw.description } }),
        } as typeof schema,
        url,
      }
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // The plugin's policy asks for `upgrade-insecure-requests`: over plain HTTP on any host but
    // localhost (a LAN address, before TLS is set up) the browser then fetches the page's scripts over
    // https, which fail, and the page stays blank. The rest of its policy stays.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/g, ''),
    theme: {
      title: TITLE,
      css: [{ filename: 'linkline.css', content: THEME_CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
    },
    uiConfig: { defaultModelsExpandDepth: 0, tryItOutEnabled: true },
  })
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
