import fc from 'fast-check'
import { PNG } from 'pngjs'

/** Raw bodies for the API fuzz test (test/openapi-arbitraries.ts). */

// For a route that takes an image: valid ones, and ones that are not what their type says.
const tinyPng = PNG.sync.write(new PNG({ width: 2, height: 2 }))
const tinySvg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><rect width="1" height="1"/></svg>'
export const images = fc.constantFrom({ contentType: 'image/png', text: tinyPng }, { contentType: 'image/svg+xml', text: tinySvg })
export const mislabelledImages = fc.constantFrom(
  { contentType: 'image/png', text: tinySvg },
  { contentType: 'image/svg+xml', text: tinyPng },
  { contentType: 'image/svg+xml', text: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>' },
  { contentType: 'image/png', text: tinyPng.subarray(0, 30) },
)

/** A raw body: malformed, not an object, or in a content type the API does not take. */
export const rawBodies = fc.constantFrom(
  { contentType: 'application/json', text: '{"destination":' },
  { contentType: 'application/json', text: '[]' },
  { contentType: 'application/json', text: '"x"' },
  { contentType: 'application/json', text: 'null' },
  { contentType: 'application/json', text: '' },
  { contentType: 'application/json', text: '{"a":1,"a":2}' },
  { contentType: 'application/json', text: '{"__proto__":{"polluted":1}}' },
  { contentType: 'application/json', text: '\ufeff{}' },
  { contentType: 'application/json', text: '1'.repeat(400) },
  { contentType: 'application/json; charset=latin1', text: '{}' },
  { contentType: 'APPLICATION/JSON', text: '{}' },
  { contentType: 'text/plain', text: 'hello' },
  { contentType: 'multipart/form-data; boundary=x', text: '--x--' },
  { contentType: 'application/x-www-form-urlencoded', text: '%ff=%fe&a[b][c]=1&=&&a[=1' },
  { contentType: 'application/x-www-form-urlencoded', text: 'x'.repeat(70_000) },
)
