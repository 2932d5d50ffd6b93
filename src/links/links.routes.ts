import { errorResponses } from '../shared/schema.js'
import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { toValidationError } from '../http/validation.js'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import {
  BulkCreateBody,
  BulkCreateEnvelope,
  BulkCreateShape,
  BulkDeleteBody,
  BulkDeleteEnvelope,
  CreateLinkBody,
  LinkDeletedEnvelope,
  LinkEnvelope,
  LinkIdParams,
  LinkListEnvelope,
  ListLinksQuery,
  UpdateLinkBody,
} from './links.schemas.js'
import type { LinksBulk } from './links.bulk.js'
import type { LinksService } from './links.service.js'
import { LINK_CREATED } from './link-writes.js'
import { notALinkBody } from './links.errors.js'
import { principalOf } from '../http/auth.js'

const tags = ['links']
/** The body limit of a bulk create: 4 KiB per item on average, whatever LINKLINE_BODY_LIMIT says for the rest. */
export const BULK_BODY_LIMIT = 4 * 1024 * 1024
const security = [{ bearer: [] }]

export function linksRoutes(app: App, { links, bulk }: { links: LinksService; bulk: LinksBulk }): void {
  app.get(
    '/v1/links',
    {
      config: { scope: 'links:read' },
      schema: {
        tags,
        security,
        summary: 'List your links, newest first',
        description:
          "One page of the workspace's links (`limit` 1–100, default 20; `page` from 1), with `pagination.hasMore`. Filter with `query[domain]`, `query[path]`, `query[destination]`, `query[title]` (exact), `query[tag]` (repeatable: links carrying every tag), `query[health]` (`ok`, `broken`, `unknown`) and `q` (a case-insensitive substring of the title, path, destination or a tag); order with `sort=createdAt|clicks|lastClickedAt`, `-` for descending.",
        querystring: ListLinksQuery,
        response: { 200: LinkListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, ...(await links.list(principalOf(req), req.query)) }),
  )

  app.post(
    '/v1/links',
    {
      config: { scope: 'links:write', audit: LINK_CREATED },
      schema: {
        tags,
        security,
        summary: 'Create a link',
        description:
          "Creates a short link to `destination` (an absolute http or https URL) on `domain` (a default domain or one of your verified custom domains) at `path` (random when omitted). A taken domain and path is 409; every invalid field is 400 with its `param`. Without a `title`, the destination page's title is fetched in the background and appears on the link shortly (`titleSource: page`). Send an `Idempotency-Key` to retry safely.",
        body: CreateLinkBody,
        response: { 201: LinkEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send({ success: true, data: await links.create(principalOf(req), req.body) }),
  )

  app.post(
    '/v1/links/bulk',
    {
      config: { scope: 'links:write', audit: LINK_CREATED },
      // 1000 bodies do not fit in the 64 KiB of one (docs/api/links.md#bulk).
      bodyLimit: BULK_BODY_LIMIT,
      // Ajv's verdict on the whole body is only attached: one bad item must fail only itself.
      attachValidation: true,
      schema: {
        tags,
        security,
        summary: 'Create up to 1000 links (at most 100 with a password); one result per item, in order (a bad item fails only itself)',
        description:
          "Each item is validated and created on its own: the answer holds one `{ok, data | error}` per item, in the order sent, so one bad item never fails the others. At most 1000 items, 100 of them with a password (hashing is slow on purpose). Items without a `title` get their page's title in the background, as a single create does.",
        body: BulkCreateBody,
        response: { 200: BulkCreateEnvelope, ...errorResponses },
      },
    },
    async (req) => {
      const checkShape = req.compileValidationSchema(BulkCreateShape)
      if (!checkShape(req.body)) throw toValidationError(checkShape.errors as FastifySchemaValidationError[], 'body')
      const checkItem = req.compileValidationSchema(CreateLinkBody)
      const items = (req.body.links as unknown[]).map((item) => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) return { error: notALinkBody() }
        return checkItem(item) ? { input: item as CreateLinkBody } : { error: toValidationError(checkItem.errors as FastifySchemaValidationError[], '') }
      })
      return { success: true as const, data: await bulk.createMany(principalOf(req), items) }
    },
  )

  app.post(
    '/v1/links/bulk-delete',
    {
      config: { scope: 'links:write', audit: { resource: 'link', action: 'deleted', each: true } },
      schema: {
        tags,
        security,
        summary: 'Delete up to 1000 links; one result per id, in order',
        description: 'Deletes each id as `DELETE /v1/links/{id}` would; an id that is not one of your links gets its own 404 result and the others still go.',
        body: BulkDeleteBody,
        response: { 200: BulkDeleteEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await bulk.deleteMany(principalOf(req), req.body.ids) }),
  )

  app.get(
    '/v1/links/:id',
    {
      config: { scope: 'links:read' },
      schema: {
        tags,
        security,
        summary: 'Retrieve a link',
        description: "The link with its settings, click counts and `shortUrl`. Another workspace's link is 404, as an unknown one.",
        params: LinkIdParams,
        response: { 200: LinkEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await links.get(principalOf(req), req.params.id) }),
  )

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/v1/links/:id',
      config: { scope: 'links:write', audit: { resource: 'link' } },
      preValidation: resourceFirst((req, id) => links.get(principalOf(req), id)),
      schema: {
        tags,
        security,
        summary: 'Update a link (partial: only the fields sent change)',
        description:
          'Changes the fields sent and nothing else; `null` clears an optional field. The redirect follows the change on the very next request, on every instance. A moved domain or path must be free (409 otherwise).',
        params: LinkIdParams,
        body: UpdateLinkBody,
        response: { 200: LinkEnvelope, ...errorResponses },
      },
      handler: async (req) => ({ success: true as const, data: await links.update(principalOf(req), req.params.id, req.body) }),
    })
  }

  app.delete(
    '/v1/links/:id',
    {
      config: { scope: 'links:write', audit: { resource: 'link' } },
      schema: {
        tags,
        security,
        summary: 'Delete a link, its statistics and its conversations',
        description:
          'The redirect answers 404 at once and the domain and path are free again; statistics, recorded visits and the conversations attached to the link go with it (purged in the background).',
        params: LinkIdParams,
        response: { 200: LinkDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await links.delete(principalOf(req), req.params.id) }),
  )
}
