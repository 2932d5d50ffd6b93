import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import {
  CreatedWebhookEnvelope,
  CreateWebhookBody,
  DeliveryEnvelope,
  DeliveryIdParams,
  DeliveryListEnvelope,
  EmptyBody,
  ListDeliveriesQuery,
  UpdateWebhookBody,
  WebhookDeletedEnvelope,
  WebhookEnvelope,
  WebhookIdParams,
  WebhookListEnvelope,
} from './webhooks.schemas.js'
import type { WebhooksService } from './webhooks.service.js'
import { principalOf } from '../http/auth.js'

const tags = ['webhooks']
const security = [{ bearer: [] }]

export function webhooksRoutes(app: App, { webhooks }: { webhooks: WebhooksService }): void {
  const owned = resourceFirst((req, id) => webhooks.get(principalOf(req), id))

  app.post(
    '/v1/webhooks',
    {
      config: { scope: 'webhooks:write', audit: { resource: 'webhook' } },
      schema: {
        tags,
        security,
        summary: 'Add a webhook endpoint (its signing secret is in this response only)',
        description:
          "Send the receiver's https `url` and the `events` it wants. Deliveries are signed (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`) with the secret in this answer, retried with growing delays for about a day, and never sent to private or loopback addresses.",
        body: CreateWebhookBody,
        response: { 201: CreatedWebhookEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send({ success: true, data: await webhooks.create(principalOf(req), req.body) }),
  )

  app.get(
    '/v1/webhooks',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        security,
        summary: 'Your webhook endpoints, newest first',
        description: "Each endpoint's URL, events, whether it is enabled and why it was disabled; never the secret.",
        response: { 200: WebhookListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await webhooks.list(principalOf(req)) }),
  )

  app.get(
    '/v1/webhooks/:id',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        security,
        summary: 'Retrieve a webhook endpoint',
        description: "Its URL, events and state; never the secret. Another workspace's endpoint is 404.",
        params: WebhookIdParams,
        response: { 200: WebhookEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await webhooks.get(principalOf(req), req.params.id) }),
  )

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/v1/webhooks/:id',
      config: { scope: 'webhooks:write', audit: { resource: 'webhook' } },
      preValidation: owned,
      schema: {
        tags,
        security,
        summary: 'Update a webhook endpoint (partial); enabled: true resumes a disabled one',
        description:
          'Change `url`, `events`, `description` or `enabled`. An endpoint the service disabled (every attempt failed for about a day) resumes with `enabled: true`.',
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookEnvelope, ...errorResponses },
      },
      handler: async (req) => ({ success: true as const, data: await webhooks.update(principalOf(req), req.params.id, req.body) }),
    })
  }

  app.delete(
    '/v1/webhooks/:id',
    {
      config: { scope: 'webhooks:write', audit: { resource: 'webhook' } },
      schema: {
        tags,
        security,
        summary: 'Delete a webhook endpoint and its delivery log',
        description: 'No delivery is attempted after this, including retries already scheduled.',
        params: WebhookIdParams,
        response: { 200: WebhookDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await webhooks.delete(principalOf(req), req.params.id) }),
  )

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { scope: 'webhooks:read' },
      preValidation: owned,
      schema: {
        tags,
        security,
        summary: 'The delivery log of an endpoint, newest first (cursor: starting_after)',
        description:
          "Each delivery's event, status (`pending`, `delivered`, `failed`), attempts, last HTTP status, last error and the start of the receiver's answer.",
        params: WebhookIdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: DeliveryListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, ...(await webhooks.listDeliveries(principalOf(req), req.params.id, req.query)) }),
  )

  app.post(
    '/v1/webhooks/:id/test',
    {
      config: { scope: 'webhooks:write', audit: { resource: 'webhook', action: 'tested', id: 'id' } },
      preValidation: owned,
      schema: {
        tags,
        security,
        summary: 'Send a webhook.test event to this endpoint',
        description:
          'Queues one signed `webhook.test` delivery now, to check the receiver and its signature check; it appears in the delivery log like any other.',
        params: WebhookIdParams,
        body: EmptyBody,
        response: { 202: DeliveryEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(202).send({ success: true, data: await webhooks.test(principalOf(req), req.params.id) }),
  )

  app.post(
    '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    {
      config: { scope: 'webhooks:write', audit: { resource: 'webhook_delivery', action: 'retried', id: 'delivery_id' } },
      preValidation: owned,
      schema: {
        tags,
        security,
        summary: 'Replay a delivery: a fresh round of attempts, starting now',
        description:
          'Answers 202 and sends the same body again (same `webhook-id`, so a receiver that already has it can drop it), with a full set of retries.',
        params: DeliveryIdParams,
        body: EmptyBody,
        response: { 202: DeliveryEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(202).send({ success: true, data: await webhooks.retry(principalOf(req), req.params.id, req.params.delivery_id) }),
  )
}
