import { errorResponses } from '../shared/schema.js'
import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import {
  CreateLinkBody,
  LinkDeletedEnvelope,
  LinkEnvelope,
  LinkIdParams,
  LinkListEnvelope,
  ListLinksQuery,
  UpdateLinkBody,
} from './links.schemas.js'
import type { LinksService } from './links.service.js'

const tags = ['links']
const security = [{ bearer: [] }]

export function linksRoutes(app: App, { links }: { links: LinksService }): void {
  app.get('/v1/links', {
    config: { scope: 'links:read' },
    schema: { tags, security, summary: 'List your links, newest first', querystring: ListLinksQuery, response: { 200: LinkListEnvelope, ...errorResponses } },
  }, async (req) => ({ success: true as const, ...(await links.list(req.principal, req.query)) }))

  app.post('/v1/links', {
    config: { scope: 'links:write' },
    schema: { tags, security, summary: 'Create a link', body: CreateLinkBody, response: { 201: LinkEnvelope, ...errorResponses } },
  }, async (req, reply) => reply.code(201).send({ success: true, data: await links.create(req.principal, req.body) }))

  app.get('/v1/links/:id', {
    config: { scope: 'links:read' },
    schema: { tags, security, summary: 'Retrieve a link', params: LinkIdParams, response: { 200: LinkEnvelope, ...errorResponses } },
  }, async (req) => ({ success: true as const, data: await links.get(req.principal, req.params.id) }))

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/v1/links/:id',
      config: { scope: 'links:write' },
      preValidation: resourceFirst((req, params) => links.get(req.principal, params.id as string)),
      schema: {
        tags, security, summary: 'Update a link (partial: only the fields sent change)',
        params: LinkIdParams, body: UpdateLinkBody, response: { 200: LinkEnvelope, ...errorResponses },
      },
      handler: async (req) => ({ success: true as const, data: await links.update(req.principal, req.params.id, req.body) }),
    })
  }

  app.delete('/v1/links/:id', {
    config: { scope: 'links:write' },
    schema: {
      tags, security, summary: 'Delete a link, its statistics and its conversations',
      params: LinkIdParams, response: { 200: LinkDeletedEnvelope, ...errorResponses },
    },
  }, async (req) => ({ success: true as const, data: await links.delete(req.principal, req.params.id) }))
}
