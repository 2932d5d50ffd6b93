import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AppError } from '../shared/errors.js'
import { nestedTooDeep, parseParams } from './parsing.js'

/** A plain copy, so that deepEqual compares values and not the null prototype. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('parseParams', () => {
  test('flat fields, decoded; an empty input is no field', () => {
    assert.deepEqual(plain(parseParams('a=1&b=two+words&c=%C3%A9%26')), { a: '1', b: 'two words', c: 'é&' })
    assert.deepEqual(plain(parseParams('')), {})
    assert.deepEqual(plain(parseParams('empty=&flag')), { empty: '', flag: '' })
  })

  test('bracket notation builds one level of objects', () => {
    assert.deepEqual(plain(parseParams('query[title]=Sale&query[path]=%2Fx&limit=5')), { query: { title: 'Sale', path: '/x' }, limit: '5' })
    // A plain value then a bracketed one: the object wins (the schema then judges it).
    assert.deepEqual(plain(parseParams('query=x&query[title]=y')), { query: { title: 'y' } })
    // Deeper or malformed brackets are a key of their own, which the schema refuses as unknown.
    assert.deepEqual(plain(parseParams('a[b][c]=1&d[=2')), { 'a[b][c]': '1', 'd[': '2' })
  })

  test('a repeated key becomes an array', () => {
    assert.deepEqual(plain(parseParams('a=1&a=2&a=3')), { a: ['1', '2', '3'] })
    assert.deepEqual(plain(parseParams('q[t]=1&q[t]=2')), { q: { t: ['1', '2'] } })
  })

  test('objects have no prototype: __proto__ and constructor are own keys', () => {
    const parsed = parseParams('__proto__=x&constructor=y&q[__proto__]=z')
    assert.equal(Object.getPrototypeOf(parsed), null)
    assert.deepEqual(Object.keys(parsed), ['__proto__', 'constructor', 'q'])
    assert.equal(parsed.__proto__, 'x')
    assert.deepEqual(Object.keys(parsed.q as object), ['__proto__'])
    assert.equal(({} as Record<string, unknown>).x, undefined, 'Object.prototype untouched')
  })

  test('limited: more than 256 fields or 32 repeats are refused; unlimited (query strings) never throws', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=1`).join('&')
    assert.equal(Object.keys(parseParams(fields(256))).length, 256)
    assert.throws(
      () => parseParams(fields(257)),
      (e: unknown) => e instanceof AppError && e.code === 'invalid_body',
    )
    assert.throws(
      () => parseParams('&'.repeat(300)),
      (e: unknown) => e instanceof AppError && e.code === 'invalid_body',
    )
    const repeats = (n: number) => Array.from({ length: n }, () => 'a=1').join('&')
    assert.equal((parseParams(repeats(32)).a as string[]).length, 32)
    assert.throws(
      () => parseParams(repeats(33)),
      (e: unknown) => e instanceof AppError && e.code === 'validation_error' && e.param === 'a',
    )
    assert.equal((parseParams(repeats(40), false).a as string[]).length, 40)
    assert.equal(Object.keys(parseParams(fields(300), false)).length, 300)
  })
})

describe('nestedTooDeep', () => {
  const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth)

  test('more than 64 arrays and objects open at once', () => {
    assert.equal(nestedTooDeep(nested(64)), false)
    assert.equal(nestedTooDeep(nested(65)), true)
    assert.equal(nestedTooDeep(`{"a":${nested(63)}}`), false)
    assert.equal(nestedTooDeep(`{"a":${nested(64)}}`), true)
    assert.equal(nestedTooDeep(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`), true)
    // Siblings add no depth.
    assert.equal(nestedTooDeep(`[${Array.from({ length: 1000 }, () => '[1]').join(',')}]`), false)
  })

  test('brackets inside strings are text, escaped quotes included', () => {
    assert.equal(nestedTooDeep(`{"a":"${'['.repeat(100)}"}`), false)
    // JSON "\\" is one backslash: the string ends at the next quote.
    assert.equal(nestedTooDeep(`{"a":"\\\\","b":${nested(65)}}`), true)
    // JSON "\"[[…" is a string that holds a quote and brackets.
    assert.equal(nestedTooDeep(`{"a":"\\"${'['.repeat(100)}"}`), false)
  })
})
