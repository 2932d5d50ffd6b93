import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { ErrorBody } from '../shared/schema.js'
import type { App } from './types.js'

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
        title: 'Linkline API',
        version: '1.0.0',
        description: 'Short links with redirects, QR codes and click statistics, and conversations. Errors use one shape: {success:false, error:{code, message, param}}.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true })
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
