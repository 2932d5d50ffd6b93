import fc from 'fast-check'
import { PNG } from 'pngjs'

/** Bodies for the fuzz test of a route that takes an image: valid ones, and ones that are not what their type says. */
const tinyPng = PNG.sync.write(new PNG({ width: 2, height: 2 }))
const tinySvg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><rect width="1" height="1"/></svg>'
export const images = fc.constantFrom({ contentType: 'image/png', text: tinyPng }, { contentType: 'image/svg+xml', text: tinySvg })
export const mislabelledImages = fc.constantFrom(
  { contentType: 'image/png', text: tinySvg },
  { contentType: 'image/svg+xml', text: tinyPng },
  { contentType: 'image/svg+xml', text: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>' },
  { contentType: 'image/png', text: tinyPng.subarray(0, 30) },
)
