import { Type } from 'typebox'
import { Envelope, Nullable } from '../shared/schema.js'

const HOST_PATTERN = '^(?=.{1,253}(:|$))([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:[0-9]{1,5})?$'

export const DomainObject = Type.Object(
  { name: Type.String(), isDefault: Type.Boolean(), createdAt: Nullable(Type.String({ format: 'date-time' })) },
  { $id: 'Domain' },
)
export const CreateDomainBody = Type.Object(
  {
    name: Type.String({
      maxLength: 259,
      pattern: HOST_PATTERN,
      'x-error': 'name must be a host name (letters, digits, hyphens and dots), optionally with :port',
      examples: ['go.acme.example'],
    }),
  },
  { additionalProperties: false },
)
export const DomainNameParams = Type.Object({ name: Type.String({ maxLength: 259 }) })
export const DomainEnvelope = Envelope(Type.Ref('Domain'))
export const DomainListEnvelope = Envelope(Type.Array(Type.Ref('Domain')))
export const DomainDeletedEnvelope = Envelope(Type.Object({ name: Type.String(), deleted: Type.Literal(true) }))
