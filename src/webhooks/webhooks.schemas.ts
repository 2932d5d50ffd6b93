import { Type, type Static } from 'typebox'
import { CreatedBy, Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { EVENT_TYPES } from './events.js'

const DateTime = Type.String({ format: 'date-time' })
const EventName = StringEnum([...EVENT_TYPES, '*'], { description: 'an event name, or * for every event' })

const webhookProperties = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String({ description: 'why Linkline disabled the endpoint (it kept failing); null otherwise' })),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: CreatedBy,
}
export const WebhookObject = Type.Object(webhookProperties, { $id: 'Webhook' })
export type WebhookObject = Static<typeof WebhookObject>

export const DeliveryObject = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String({ description: 'the webhook-id header: the same on every attempt' }),
    eventType: Type.String(),
    status: StringEnum(['pending', 'delivered', 'failed']),
    delivered: Type.Boolean(),
    attempts: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    responseExcerpt: Nullable(Type.String({ description: 'the first 512 bytes of the last answer, at most' })),
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
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false, examples: [{ url: 'https://hooks.example/linkline', events: ['link.created', 'link.clicked'] }] },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
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
    secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes: shown in this response only; keep it to verify signatures' }),
  }),
)
export const WebhookListEnvelope = Envelope(Type.Array(Type.Ref('Webhook')))
export const WebhookDeletedEnvelope = Envelope(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }))
export const DeliveryEnvelope = Envelope(Type.Ref('WebhookDelivery'))
export const DeliveryListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Type.Ref('WebhookDelivery')),
  pagination: Type.Object({ limit: Type.Integer(), hasMore: Type.Boolean(), nextCursor: Nullable(Type.String()) }),
})
