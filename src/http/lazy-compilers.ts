import AjvCompiler from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

/**
 * Fastify compiles a validator for every part of every route, and a serializer for every answer of
 * every route, when the server starts: ~70 operations with their error answers cost more than a
 * second of CPU per start, although an instance serves only some of them (the redirect needs none).
 * These factories compile each one at its first use instead, with Fastify's own compilers and
 * options, so what is compiled behaves as before; a start costs only what the routes in use need.
 *
 * With a validator factory of its own, Fastify no longer lower-cases the property names of a route's
 * `headers` schema: no route declares one (request headers are read in hooks).
 */
type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
interface RouteSchema {
  schema: unknown
  method: string
  url: string
}
type Validate = ((data: unknown) => unknown) & { errors?: unknown }
type Factory<F> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => F

const eagerValidators = AjvCompiler() as unknown as Factory<Validate>
const eagerSerializers = SerializerSelector() as unknown as Factory<(data: unknown) => string>

const buildValidator: Factory<Validate> = (externalSchemas, options) => {
  const compile = eagerValidators(externalSchemas, options)
  return (route) => {
    let validate: Validate | undefined
    const lazy: Validate = (data) => {
      validate ??= compile(route)
      const valid = validate(data)
      // Fastify reads `errors` off the function it called, after a `false`.
      lazy.errors = validate.errors
      return valid
    }
    return lazy
  }
}

const buildSerializer: Factory<(data: unknown) => string> = (externalSchemas, options) => {
  const compile = eagerSerializers(externalSchemas, options)
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined
    return (data) => (serialize ??= compile(route))(data)
  }
}

export const lazyCompilers = { buildValidator, buildSerializer } as unknown as Compilers
