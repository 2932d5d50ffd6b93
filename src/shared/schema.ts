import { Type, type Static, type TObject, type TSchema, type TSchemaOptions } from 'typebox'

/**
 * Schema helpers shared by every feature. `x-error` is our own annotation (registered with Ajv in
 * http/validation.ts): the message a client gets when the value breaks a pattern or a format.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/**
 * One of a few strings: `{type: "string", enum: [...]}`, which the OpenAPI document lists in full and
 * Ajv reports as one `enum` error ("ecc must be one of L, M, Q, H"). A union of literals would render
 * as anyOf/const (shown as its first value only) and fail with one error per branch.
 */
export const StringEnum = <const T extends string[]>(values: readonly [...T], options: TSchemaOptions = {}) => Type.Enum(values, { type: 'string', ...options })

/**
 * The `default` a schema declares for one of its properties, so that a service applies the very value
 * the OpenAPI document shows instead of a copy of it. Throws at start when the property has none.
 */
export function defaultOf<T extends TObject, K extends keyof T['properties'] & keyof Static<T> & string>(schema: T, key: K): NonNullable<Static<T>[K]> {
  const value = (schema.properties[key] as { default?: unknown } | undefined)?.default
  if (value === undefined) throw new Error(`the schema declares no default for ${key}`)
  return value as NonNullable<Static<T>[K]>
}

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ examples: ['not_found'] }),
      message: Type.String({ examples: ['no such link'] }),
      param: Type.Union([Type.String({ examples: ['id'] }), Type.Null()], { description: 'The parameter at fault, or null' }),
    }),
  },
  { $id: 'ErrorBody', description: 'The one error shape of every endpoint' },
)

/** Response schemas of the errors every authenticated endpoint can answer, for the OpenAPI document. */
export const errorResponses = {
  '4xx': Type.Ref('ErrorBody'),
  '5xx': Type.Ref('ErrorBody'),
}

/** Who made a resource (`createdBy`): null for what was made before people existed, or by the CLI. */
export const CreatedBy = Nullable(
  Type.Object(
    {
      type: Type.Union([Type.Literal('user'), Type.Literal('token')]),
      id: Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'], description: 'usr_… or tok_…' }),
      label: Type.String({ examples: ['ada@example.com'], description: "the person's email or the token's name, as it was then" }),
    },
    { description: 'who made it' },
  ),
)

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data })
