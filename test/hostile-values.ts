import fc, { type Arbitrary } from 'fast-check'

/** Hostile values for the OpenAPI fuzz test (test/openapi-arbitraries.ts): text and numbers that break naive code. */
const char = (codes: number[]) => fc.constantFrom(...codes).map((c) => String.fromCharCode(c))
const controls = char([...Array.from({ length: 32 }, (_, i) => i), 0x7f, 0x85, 0x9f])
const loneSurrogates = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', 'a\ud83d', '\ude00b')
const bidi = fc.constantFrom('\u202e', '\u202d', '\u200f', '\u2066', 'עברית', 'العربية', '\u202egnp.exe')
const combining = fc.constantFrom('e\u0301', 'a\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307', '\u0301', 'ﷺ', 'ﷻ')
const oddities = fc.constantFrom(
  '\u0000',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\uffff',
  '\ufffd',
  '\u00a0',
  '\u200b',
  '👩‍👩‍👧',
  '🇩🇪',
  '𝕏',
  '日本語',
  'İ',
  'ß',
  'ﬁ',
  "' OR 1=1 --",
  '"; drop table links; --',
  '../../etc/passwd',
  '%00',
  '%ff',
  '%',
  '{{7*7}}',
  '${x}',
  '<script>',
  '__proto__',
  'constructor',
  'null',
  'true',
  '-1',
  '1e309',
  '0x10',
  ' ',
  '\\',
  '"',
  '[]',
  '{}',
)
const unicodeText = fc.string({ unit: 'binary', maxLength: 24 })

/** Short strings made of the pieces above, in any order. */
export const hostileString: Arbitrary<string> = fc
  .array(fc.oneof(unicodeText, controls, loneSurrogates, bidi, combining, oddities, fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(''))

/** Long strings: just over the usual limits, and over the 64 KiB body limit. */
export const longString: Arbitrary<string> = fc
  .tuple(fc.constantFrom(129, 256, 2049, 4001, 70_000), fc.constantFrom('x', 'é', '😀', '\u0301', '\u0000'))
  .map(([n, c]) => c.repeat(n))

const hostileNumber: Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, 0, -0, 0.5, 1.5, -1.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, 1e21, 5e-324, 253402300800),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

export const anyJson: Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [1, 'a'], { a: 1 }, [null], { __proto__: 1 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
)
