import assert from 'node:assert/strict'
import { test } from 'node:test'
import { lazyCompilers } from './lazy-compilers.js'

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpPart: 'querystring', httpStatus: '200' })
type Validate = ((data: unknown) => unknown) & { errors?: Array<{ instancePath: string }> }

test('a validator compiles at its first use, and reports its errors where Fastify reads them', () => {
  const compile = lazyCompilers.buildValidator!({}, { customOptions: { coerceTypes: false } }) as unknown as (r: unknown) => Validate
  // A schema that cannot compile: the route is set up without a complaint, its first use throws.
  const broken = compile(route({ type: 'object', properties: { n: { $ref: '#/nowhere' } } }))
  assert.throws(() => broken({}))
  const validate = compile(route({ type: 'object', properties: { n: { type: 'integer' } } }))
  assert.equal(validate({ n: 1 }), true)
  assert.equal(validate({ n: 'one' }), false)
  assert.equal(validate.errors?.[0]?.instancePath, '/n')
  assert.equal(validate({ n: 2 }), true)
  assert.equal(validate.errors, null)
})

test('a serializer compiles at its first use and writes what the eager one writes', () => {
  const compile = lazyCompilers.buildSerializer!({}, {}) as unknown as (r: unknown) => (data: unknown) => string
  const broken = compile(route({ type: 'object', properties: { n: { $ref: '#/nowhere' } } }))
  assert.throws(() => broken({ n: 1 }))
  const serialize = compile(route({ type: 'object', properties: { n: { type: 'integer' } } }))
  assert.equal(serialize({ n: 1, secret: 'x' }), '{"n":1}')
})
