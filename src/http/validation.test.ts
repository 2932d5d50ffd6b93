import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Type } from 'typebox'
import { Nullable } from '../shared/schema.js'
import { coerce, findText } from './validation.js'

const schema = Type.Object({
  flag: Type.Boolean(),
  count: Type.Integer(),
  name: Type.String(),
  note: Nullable(Type.String()),
  limit: Nullable(Type.Integer()),
  query: Type.Object({ title: Type.String(), pinned: Type.Boolean() }),
})
const field = (name: keyof typeof schema.properties) => schema.properties[name] as unknown as Parameters<typeof coerce>[1]

describe('coerce', () => {
  test('booleans: true|false|1|0, anything else is left for the validator to refuse', () => {
    for (const [input, output] of [
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
      ['yes', 'yes'],
      ['TRUE', 'TRUE'],
      ['', ''],
    ] as const) {
      assert.equal(coerce(input, field('flag')), output, input)
    }
  })

  test('integers: decimal digits only, at most 15 of them', () => {
    assert.equal(coerce('20', field('count')), 20)
    assert.equal(coerce('007', field('count')), 7)
    for (const input of ['-1', '1.5', '1e3', ' 1', '0x10', '', '1234567890123456']) assert.equal(coerce(input, field('count')), input, input)
  })

  test('an empty string is null for a nullable field only; a nullable field coerces like its type', () => {
    assert.equal(coerce('', field('note')), null)
    assert.equal(coerce('', field('name')), '')
    assert.equal(coerce('', field('limit')), null)
    assert.equal(coerce('5', field('limit')), 5)
    assert.equal(coerce('x', field('note')), 'x')
  })

  test('values that are not strings are left alone (JSON is typed)', () => {
    assert.equal(coerce(true, field('flag')), true)
    assert.equal(coerce(3, field('count')), 3)
    assert.equal(coerce(null, field('note')), null)
    assert.equal(coerce('x', undefined), 'x')
  })

  test('objects: each property by its schema; a JSON-encoded object parameter is decoded', () => {
    assert.deepEqual(coerce({ flag: '1', count: '2', name: '3', extra: '4' }, schema as never), { flag: true, count: 2, name: '3', extra: '4' })
    assert.deepEqual(coerce({ query: '{"title":"a","pinned":"true"}' }, schema as never), { query: { title: 'a', pinned: true } })
    assert.deepEqual(coerce({ query: { title: 'a', pinned: '0' } }, schema as never), { query: { title: 'a', pinned: false } })
    // Not an object, or not JSON: left as it is, for the validator to refuse with the parameter's name.
    for (const input of ['[1]', '"s"', '{bad', 'null']) assert.deepEqual(coerce({ query: input }, schema as never), { query: input }, input)
  })

  test('a JSON-encoded parameter nested deeper than 64 levels stays text, for the validator to refuse', () => {
    const nested = (depth: number) => `${'{"title":'.repeat(depth)}"a"${'}'.repeat(depth)}`
    assert.equal(typeof coerce(nested(64), field('query')), 'object')
    assert.equal(coerce(nested(65), field('query')), nested(65))
    const list = Type.Array(Type.String()) as unknown as Parameters<typeof coerce>[1]
    const brackets = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
    assert.ok(Array.isArray((coerce(brackets(64), list) as unknown[])[0]), 'decoded')
    const deep = coerce(brackets(10_000), list) as unknown[]
    assert.ok(deep.length === 1 && deep[0] === brackets(10_000), 'a list of the text itself')
  })
})

describe('findText', () => {
  test('names the first matching string in bracket notation', () => {
    const nul = (s: string) => s.includes('\u0000')
    assert.equal(findText({ a: 'x', query: { title: 'b\u0000' } }, nul), 'query[title]')
    assert.equal(findText({ a: ['ok', 'n\u0000'] }, nul), 'a[1]')
    assert.equal(findText({ a: 'x', b: 1, c: null }, nul), undefined)
  })
})
