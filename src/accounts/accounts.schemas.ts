import { Type } from 'typebox'
import { Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { ROLES } from './roles.js'

export const RoleSchema = StringEnum(ROLES, { description: 'viewer < member < admin < owner, each holding the scopes of the one before' })

export const UserObject = Type.Object(
  {
    id: Type.String({ description: 'usr_…' }),
    email: Type.String(),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    lastSignInAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'User' },
)

export const MeObject = Type.Object(
  {
    user: Nullable(Type.Ref('User')),
    principal: Type.Object({
      workspaceId: Type.String(),
      scopes: Type.Array(Type.String()),
      role: RoleSchema,
      via: Type.Union([Type.Literal('session'), Type.Literal('token')], { description: 'a session cookie, or a bearer token' }),
    }),
    memberships: Type.Array(Type.Object({ workspaceId: Type.String(), workspaceName: Type.String(), role: RoleSchema })),
  },
  { $id: 'Me' },
)

export const MemberObject = Type.Object(
  {
    userId: Type.String(),
    email: Type.String(),
    name: Type.String(),
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
export const MemberDeletedEnvelope = Envelope(Type.Object({ userId: Type.String(), deleted: Type.Literal(true) }))
