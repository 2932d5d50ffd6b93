import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mergeVisits, packVisits, sliceVisits, unpackVisits, type DecodedVisits } from './block-pack.js'
import { DIMENSION_NAMES, type Profile } from './stats.dimensions.js'

const none = Object.fromEntries(DIMENSION_NAMES.map((d) => [d, null])) as Record<(typeof DIMENSION_NAMES)[number], null>
const profile = (p: Partial<Profile>): Profile => ({ ...none, bot: false, qr: false, ...p })

test('a packed block gives back its visits: times to the millisecond, every dimension, none as none', () => {
  const profiles = [
    profile({ referrer: 'news.example', browser: 'Chrome', country: 'FR', city: 'Saint-Étienne', language: 'fr' }),
    profile({ bot: true, browser: 'Googlebot' }),
    profile({ qr: true, utmSource: '🙂 newsletter', utmMedium: 'e-mail', utmCampaign: 'x'.repeat(300) }),
  ]
  const start = Date.UTC(2026, 5, 1, 10)
  const visits: DecodedVisits = {
    at: [start, start, start + 1, start + 129, start + 3_599_999],
    profile: [2, 0, 1, 0, 2],
    profiles,
  }
  assert.deepEqual(unpackVisits(packVisits(visits)), visits)
  const empty: DecodedVisits = { at: [], profile: [], profiles: [] }
  assert.deepEqual(unpackVisits(packVisits(empty)), empty)
})

test('blocks packed one after another each keep their own visits, small and past the reused buffer', () => {
  // 50 characters: their UTF-8 length takes one varint byte where three bytes per character would take two.
  const medium = (i: number) => profile({ referrer: `${'r'.repeat(48)}${i}`, city: 'Zürich', utmCampaign: '€'.repeat(50) })
  const blocks: DecodedVisits[] = [2, 40_000, 3].map((n, b) => ({
    at: Array.from({ length: n }, (_, i) => Date.UTC(2026, 5, 1) + i * 97),
    profile: Array.from({ length: n }, (_, i) => i % Math.min(n, 40)),
    profiles: Array.from({ length: Math.min(n, 40) }, (_, i) => medium(b * 100 + i)),
  }))
  const packed = blocks.map((b) => packVisits(b))
  packed.forEach((p, i) => assert.deepEqual(unpackVisits(p), blocks[i]))
})

test('a packed block of an unknown format is refused, not misread', () => {
  const packed = packVisits({ at: [1], profile: [0], profiles: [profile({})] })
  packed[0] = 9
  assert.throws(() => unpackVisits(packed), /unknown format 9/)
})

test('merged blocks are in time order, visits of one millisecond in the order of their blocks; equal profiles become one', () => {
  const a: DecodedVisits = { at: [10, 20, 30], profile: [0, 1, 0], profiles: [profile({ browser: 'A' }), profile({ browser: 'B' })] }
  const b: DecodedVisits = { at: [20, 25], profile: [0, 1], profiles: [profile({ browser: 'B' }), profile({ browser: 'C' })] }
  const merged = mergeVisits([a, b])
  assert.deepEqual(merged.at, [10, 20, 20, 25, 30])
  assert.deepEqual(
    merged.profile.map((p) => merged.profiles[p]?.browser),
    ['A', 'B', 'B', 'C', 'A'],
  )
  assert.equal(merged.profiles.length, 3)
  const part = sliceVisits(merged, 3, 5)
  assert.deepEqual(part.at, [25, 30])
  assert.deepEqual(
    part.profiles.map((p) => p.browser),
    ['C', 'A'],
  )
})
