import { Type } from 'typebox'
import { RoleSchema } from '../accounts/accounts.schemas.js'
import { ROLES } from '../accounts/roles.js'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../accounts/accounts.service.js'
import { CreatedBy, Envelope, StringEnum } from '../shared/schema.js'

const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 256, description, examples: ['hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs'] })
const NewPassword = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
  examples: ['correct horse battery staple'],
})
const Name = Type.String({ minLength: 1, maxLength: 100, description: 'how the person is shown to others', examples: ['Ada Lovelace'] })
const Email = Type.String({ maxLength: 320, examples: ['ada@example.com'] })

export const InvitationObject = Type.Object(
  {
    id: Type.String({ examples: ['inv_01JDQ8B1C2D3E4F5G6H7J8K9M0'], description: 'inv_…' }),
    email: Type.String({ examples: ['grace@example.com'] }),
    role: RoleSchema,
    workspaceId: Type.String({ examples: ['acme'] }),
    createdAt: Type.String({ format: 'date-time' }),
    createdBy: CreatedBy,
    expiresAt: Type.String({ format: 'date-time', description: 'seven days after it was made' }),
    url: Type.Optional(
      Type.String({
        examples: ['https://links.acme.example/app/invite/hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs'],
        description: 'the one-time link to /app/invite/<secret>: in the response that creates it, and never again (only a hash is stored)',
      }),
    ),
  },
  { $id: 'Invitation' },
)

export const CreateInvitationBody = Type.Object(
  { email: Email, role: StringEnum(ROLES, { description: 'viewer, member, admin or owner; only an owner invites an owner', examples: ['member'] }) },
  { additionalProperties: false },
)
export const InvitationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })

export const AcceptInvitationBody = Type.Object(
  {
    secret: Secret('the secret of the invitation link (the last part of /app/invite/<secret>)'),
    name: Type.Optional(Name),
    password: Type.Optional(NewPassword),
  },
  { additionalProperties: false, description: '`secret`, `name` and `password` create an account; `secret` alone, signed in, joins with the account you have' },
)

export const ResetPasswordBody = Type.Object(
  { secret: Secret('the secret of the reset link (the last part of /app/reset/<secret>)'), password: NewPassword },
  { additionalProperties: false },
)

export const ChangePasswordBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, examples: ['the password of today'] }), password: NewPassword },
  { additionalProperties: false },
)

export const SetupBody = Type.Object(
  { code: Secret('the code of the setup link the server printed (/app/setup?code=<code>)'), email: Email, name: Name, password: NewPassword },
  { additionalProperties: false },
)

export const InvitationEnvelope = Envelope(Type.Ref('Invitation'))
export const InvitationListEnvelope = Envelope(Type.Array(Type.Ref('Invitation')))
export const InvitationDeletedEnvelope = Envelope(
  Type.Object({ id: Type.String({ examples: ['inv_01JDQ8B1C2D3E4F5G6H7J8K9M0'] }), deleted: Type.Literal(true) }),
)
export const ResetLinkEnvelope = Envelope(
  Type.Object({
    url: Type.String({
      examples: ['https://links.acme.example/app/reset/hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs'],
      description: 'the one-time link to /app/reset/<secret>, shown only here',
    }),
    expiresAt: Type.String({ format: 'date-time', description: 'an hour after it was made' }),
  }),
)
export const PasswordResetEnvelope = Envelope(
  Type.Object({ userId: Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'] }), email: Type.String({ examples: ['ada@example.com'] }) }),
)
export const PasswordChangedEnvelope = Envelope(
  Type.Object({ changed: Type.Literal(true), sessionsEnded: Type.Integer({ description: "how many of the person's other sessions ended" }) }),
)
