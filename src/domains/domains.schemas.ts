import { Type, type Static } from 'typebox'
import { CreatedBy, Envelope, Nullable } from '../shared/schema.js'

const DateTime = Nullable(Type.String({ format: 'date-time' }))

export const DomainObject = Type.Object(
  {
    name: Type.String({ examples: ['go.acme.example'], description: 'host[:port], lower case, IDN in punycode, default ports dropped' }),
    isDefault: Type.Boolean(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('verified')], {
      description: 'a pending domain serves no redirect and takes no link until its TXT record is found; default domains are verified',
    }),
    linkCount: Type.Integer({ minimum: 0, examples: [12], description: 'your links on this domain (deleted links not counted)' }),
    createdAt: DateTime,
    createdBy: CreatedBy,
    verifiedAt: DateTime,
    lastCheckedAt: DateTime,
    verification: Nullable(
      Type.Object(
        {
          type: Type.Literal('dns-txt'),
          name: Type.String({ examples: ['_linkline.go.acme.example'], description: 'the TXT record to publish: _linkline.<host name, without port>' }),
          value: Type.String({ examples: ['linkline-verify=3f9c2a7e1b5d4c8e9a0f6b2d7c1e5a3b'] }),
        },
        { description: 'null for default domains and for domains claimed before verification existed' },
      ),
    ),
  },
  { $id: 'Domain' },
)
export type DomainObject = Static<typeof DomainObject>

export const CreateDomainBody = Type.Object(
  {
    // The real check (labels, IP literals, ports, the service's own names) is the service's, on the
    // name as the WHATWG URL parser reads it: a pattern here could not see IDN or numeric IPv4 forms.
    name: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'a DNS name (IDN allowed), optionally :port (1-65535); not an IP address, a default domain or a reserved host',
      examples: ['go.acme.example'],
    }),
  },
  { additionalProperties: false },
)

export const DomainNameParams = Type.Object({ name: Type.String({ maxLength: 300 }) })
export const DomainEnvelope = Envelope(Type.Ref('Domain'))
export const DomainListEnvelope = Envelope(Type.Array(Type.Ref('Domain')))
export const DomainDeletedEnvelope = Envelope(Type.Object({ name: Type.String({ examples: ['go.acme.example'] }), deleted: Type.Literal(true) }))
