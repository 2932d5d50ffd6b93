import { Type, type TSchema } from 'typebox'

/**
 * Schema helpers shared by every feature. `x-error` is our own annotation (registered with Ajv in
 * http/validation.ts): the message a client gets when the value breaks a pattern or a format.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      param: Type.Union([Type.String(), Type.Null()], { description: 'The parameter at fault, or null' }),
    }),
  },
  { $id: 'ErrorBody', description: 'The one error shape of every endpoint' },
)

/** Response schemas of the errors every authenticated endpoint can answer, for the OpenAPI document. */
export const errorResponses = {
  '4xx': Type.Ref('ErrorBody'),
  '5xx': Type.Ref('ErrorBody'),
}

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data })
