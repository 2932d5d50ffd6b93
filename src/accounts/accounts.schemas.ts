import { Type } from 'typebox'
import { Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { ROLES } from './roles.js'

export const RoleSchema = StringEnum(ROLES, { description: 'viewer < member < admin < owner, each holding the scopes of the one before' })

export const UserObject = Type.Object(
  {
    id: Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'], description: 'usr_…' }),
    email: Type.String({ examples: ['ada@example.com'] }),
    name: Type.String({ examples: ['Ada Lovelace'] }),
    createdAt: Type.String({ format: 'date-time' }),
    lastSignInAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'User' },
)

export const MeObject = Type.Object(
  {
    user: Nullable(Type.Ref('User')),
    principal: Type.Object({
      workspaceId: Type.String({ examples: ['acme'] }),
      scopes: Type.Array(Type.String({ examples: ['links:read'] })),
      role: RoleSchema,
      via: Type.Union([Type.Literal('session'), Type.Literal('token')], { description: 'a session cookie, or a bearer token' }),
    }),
    memberships: Type.Array(
      Type.Object({ workspaceId: Type.String({ examples: ['acme'] }), workspaceName: Type.String({ examples: ['Acme'] }), role: RoleSchema }),
    ),
  },
  { $id: 'Me' },
)

export const MemberObject = Type.Object(
  {
    userId: Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'] }),
    email: Type.String({ examples: ['ada@example.com'] }),
    name: Type.String({ examples: ['Ada Lovelace'] }),
    role: RoleSchema,
    createdAt: Type.String({ format: 'date-time', description: 'when they joined this workspace' }),
    lastSignInAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Member' },
)

export const MemberParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) })
export const ChangeRoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false, examples: [{ role: 'member' }] })

export const MeEnvelope = Envelope(Type.Ref('Me'))
export const MemberEnvelope = Envelope(Type.Ref('Member'))
export const MemberListEnvelope = Envelope(Type.Array(Type.Ref('Member')))
export const MemberDeletedEnvelope = Envelope(
  Type.Object({ userId: Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'] }), deleted: Type.Literal(true) }),
)
