import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { neutralizeCell, restoreCell } from './csv-cell.js'

/** Strings made mostly of the characters that matter here, so that the edge cases come up often. */
const trickyText = fc.string({
  unit: fc.oneof(fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", '"', ',', '|', '\n', ' '), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })),
  maxLength: 12,
})

test('a cell a spreadsheet would run gets one quote in front; others are left as they are', () => {
  for (const [text, cell] of [
    ['=HYPERLINK("https://evil.example","x")', `'=HYPERLINK("https://evil.example","x")`],
    ['+cmd', "'+cmd"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ["'=x", "''=x"],
    ["''-1", "'''-1"],
    ["'quoted'", "'quoted'"],
    ["'", "'"],
    ['a=b', 'a=b'],
    ['', ''],
  ])
    assert.equal(neutralizeCell(text as string), cell, JSON.stringify(text))
})

test('property: no written cell begins a formula, and every one reads back as it was', () => {
  fc.assert(
    fc.property(trickyText, (text) => {
      const cell = neutralizeCell(text)
      assert.doesNotMatch(cell, /^[=+\-@\t\r]/)
      assert.equal(restoreCell(cell), text)
    }),
    { numRuns: 2000 },
  )
})
