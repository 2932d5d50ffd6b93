import { Type, type Static } from 'typebox'
import { CreatedBy, Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { EVENT_TYPES } from './events.js'

const DateTime = Type.String({ format: 'date-time' })
const EventName = StringEnum([...EVENT_TYPES, '*'], { description: 'an event name, or * for every event' })

const Batch = Nullable(
  Type.Object(
    {
      maxEvents: Type.Integer({ minimum: 1, maximum: 1000, description: 'the most events in one delivery', examples: [500] }),
      maxWaitMs: Type.Integer({ minimum: 100, maximum: 60_000, description: 'how long the first event of a delivery may wait for others', examples: [1000] }),
    },
    {
      additionalProperties: false,
      description:
        'Sends link.clicked events together, as one link.clicked.batch delivery of up to maxEvents, once it is full or its first event has waited maxWaitMs; other events are never batched. null (the default): one event per delivery',
    },
  ),
)

const webhookProperties = {
  id: Type.String({ examples: ['whk_01JDQ8C1D2E3F4G5H6J7K8M9N0'] }),
  url: Type.String({ examples: ['https://hooks.acme.example/linkline'] }),
  events: Type.Array(Type.String({ examples: ['link.created'] })),
  description: Nullable(Type.String({ examples: ['CRM sync'] })),
  batch: Batch,
  enabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({
      examples: ['no delivery succeeded since 2026-11-20T10:00:00.000Z'],
      description: 'why Linkline disabled the endpoint (it kept failing); null otherwise',
    }),
  ),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: CreatedBy,
}
export const WebhookObject = Type.Object(webhookProperties, { $id: 'Webhook' })
export type WebhookObject = Static<typeof WebhookObject>

export const DeliveryObject = Type.Object(
  {
    id: Type.String({ examples: ['dlv_01JDQ8D1E2F3G4H5J6K7M8N9P0'] }),
    eventId: Type.String({ examples: ['evt_01JDQ8E1F2G3H4J5K6M7N8P9Q0'], description: 'the webhook-id header: the same on every attempt' }),
    eventType: Type.String({ examples: ['link.created'] }),
    status: StringEnum(['pending', 'delivered', 'failed']),
    delivered: Type.Boolean(),
    attempts: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String({ examples: ['answered 503'] })),
    responseExcerpt: Nullable(Type.String({ examples: ['{"ok":true}'], description: 'the first 512 bytes of the last answer, at most' })),
    lastAttemptAt: Nullable(DateTime),
    nextAttemptAt: Nullable(DateTime),
    createdAt: DateTime,
    deliveredAt: Nullable(DateTime),
  },
  { $id: 'WebhookDelivery' },
)
export type DeliveryObject = Static<typeof DeliveryObject>

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'an absolute http or https URL; not a private, loopback or link-local address',
  examples: ['https://hooks.example/linkline'],
})
const Events = Type.Array(EventName, { minItems: 1, maxItems: 20, description: 'the events to send, or ["*"]' })
const Description = Nullable(Type.String({ maxLength: 255 }))

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description), batch: Type.Optional(Batch) },
  { additionalProperties: false, examples: [{ url: 'https://hooks.example/linkline', events: ['link.created', 'link.clicked'] }] },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    batch: Type.Optional(Batch),
    enabled: Type.Optional(Type.Boolean({ description: 'true enables again an endpoint that was disabled (its pending deliveries resume)' })),
  },
  { additionalProperties: false, examples: [{ enabled: true }] },
)
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>

export const ListDeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'the id of the last delivery of the previous page' })),
  },
  { additionalProperties: false },
)
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>

// Ids in the path carry no constraint: any id that names nothing is 404.
export const WebhookIdParams = Type.Object({ id: Type.String() })
export const DeliveryIdParams = Type.Object({ id: Type.String(), delivery_id: Type.String() })
export const EmptyBody = Type.Object({}, { additionalProperties: false })

export const WebhookEnvelope = Envelope(Type.Ref('Webhook'))
export const CreatedWebhookEnvelope = Envelope(
  Type.Object({
    ...webhookProperties,
    secret: Type.String({
      examples: ['whsec_MfKQ9r8GKYqXUpXKyOPCcTSsHqJbmh5B8gCwOoXx3hE='],
      description: 'whsec_ + base64 of 32 random bytes: shown in this response only; keep it to verify signatures',
    }),
  }),
)
export const WebhookListEnvelope = Envelope(Type.Array(Type.Ref('Webhook')))
export const WebhookDeletedEnvelope = Envelope(Type.Object({ id: Type.String({ examples: ['whk_01JDQ8C1D2E3F4G5H6J7K8M9N0'] }), deleted: Type.Literal(true) }))
export const DeliveryEnvelope = Envelope(Type.Ref('WebhookDelivery'))
export const DeliveryListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Type.Ref('WebhookDelivery')),
  pagination: Type.Object({
    limit: Type.Integer(),
    hasMore: Type.Boolean(),
    nextCursor: Nullable(Type.String({ examples: ['dlv_01JDQ8D1E2F3G4H5J6K7M8N9P0'] })),
  }),
})
