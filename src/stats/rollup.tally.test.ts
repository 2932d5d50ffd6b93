import assert from 'node:assert/strict'
import { test } from 'node:test'
import { blockOf, facetsOf, tally } from './rollup.tally.js'
import { addFacets, type ProfileInput } from './stats.dimensions.js'
import { blockVisits, VisitColumnsBuilder, type BlockColumns } from './visit-columns.js'

const human: ProfileInput = { bot: false, qr: false, referrer: null, browser: 'Firefox', os: 'Linux', device: 'desktop', country: null }
const bot: ProfileInput = { ...human, bot: true }
const at = (iso: string) => Date.parse(iso)

/** A journal batch of [link, time, profile, visitor] visits, to count and to put in blocks unless told otherwise. */
function batch(visits: [string, string, ProfileInput, string][], use = { count: true, block: true }) {
  const columns = new VisitColumnsBuilder()
  for (const [link, time, profile, visitor] of visits) columns.push(columns.intern(link), at(time), columns.profile(profile), columns.intern(visitor))
  return { batch: columns.build(), ...use }
}

test('the tally keeps each visitor’s first visit of the day, per link, whatever the order of visits and batches', () => {
  const { links } = tally([
    batch([
      ['lnk_a', '2026-06-01T10:30:00Z', human, 'v1'],
      ['lnk_b', '2026-06-01T10:31:00Z', human, 'v1'],
      ['lnk_a', '2026-06-01T10:40:00Z', bot, 'v1'],
      ['lnk_a', '2026-06-01T10:50:00Z', human, 'v1'],
    ]),
    // A stale journal taken over: visits earlier than those already tallied.
    batch([
      ['lnk_a', '2026-06-01T10:10:00Z', human, 'v1'],
      ['lnk_a', '2026-06-01T11:00:00Z', human, 'v1'],
      ['lnk_a', '2026-06-01T11:05:00Z', human, 'v2'],
      ['lnk_a', '2026-06-01T09:59:00Z', human, 'v2'],
      ['lnk_a', '2026-06-02T00:01:00Z', human, 'v1'],
    ]),
  ])
  const a = links.get('lnk_a')
  assert.ok(a)
  const firsts = (day: string) => Object.fromEntries(a.visitors.get(at(day)) ?? [])
  assert.deepEqual(firsts('2026-06-01T00:00:00Z'), { v1: at('2026-06-01T10:10:00Z'), v2: at('2026-06-01T09:59:00Z') })
  assert.deepEqual(firsts('2026-06-02T00:00:00Z'), { v1: at('2026-06-02T00:01:00Z') })
  const hours = Object.fromEntries([...a.hours].map(([hour, t]) => [new Date(hour).toISOString(), [t.total, t.human, t.bot, t.ordered]]))
  assert.deepEqual(hours, {
    '2026-06-01T09:00:00.000Z': [1, 1, 0, true],
    '2026-06-01T10:00:00.000Z': [4, 3, 1, false],
    '2026-06-01T11:00:00.000Z': [2, 2, 0, true],
    '2026-06-02T00:00:00.000Z': [1, 1, 0, true],
  })
  assert.deepEqual(Object.fromEntries(links.get('lnk_b')?.visitors.get(at('2026-06-01T00:00:00Z')) ?? []), { v1: at('2026-06-01T10:31:00Z') })
  assert.equal(a.hours.get(at('2026-06-01T10:00:00Z'))?.start, at('2026-06-01T10:10:00Z'))
  assert.equal(a.hours.get(at('2026-06-01T10:00:00Z'))?.end, at('2026-06-01T10:50:00Z'))
  // What the link's own counters gain: its human visits, and the latest of them (links.clicks, last_clicked_at).
  assert.deepEqual([a.human, a.lastHuman], [7, at('2026-06-02T00:01:00Z')])
  assert.deepEqual([links.get('lnk_b')?.human, links.get('lnk_b')?.lastHuman], [1, at('2026-06-01T10:31:00Z')])
})

test('visits counted by an earlier roll-up are only listed for their blocks; visits left for a later block are only counted', () => {
  const { links, visits } = tally([
    batch([['lnk_a', '2026-06-01T10:30:00Z', human, 'v1']], { count: false, block: true }),
    batch(
      [
        ['lnk_a', '2026-06-01T10:20:00Z', human, 'v2'],
        ['lnk_a', '2026-06-01T11:20:00Z', bot, 'v2'],
      ],
      { count: true, block: false },
    ),
    batch([['lnk_a', '2026-06-01T10:40:00Z', human, 'v3']]),
  ])
  const a = links.get('lnk_a')
  assert.ok(a)
  const hours = Object.fromEntries(
    [...a.hours].map(([hour, t]) => [new Date(hour).toISOString(), { counted: [t.total, t.human, t.bot], listed: t.listed, from: t.start, to: t.end }]),
  )
  assert.deepEqual(hours, {
    '2026-06-01T10:00:00.000Z': { counted: [2, 2, 0], listed: 2, from: at('2026-06-01T10:30:00Z'), to: at('2026-06-01T10:40:00Z') },
    '2026-06-01T11:00:00.000Z': { counted: [1, 0, 1], listed: 0, from: Infinity, to: -Infinity },
  })
  assert.deepEqual(
    Object.keys(Object.fromEntries(a.visitors.get(at('2026-06-01T00:00:00Z')) ?? [])).sort(),
    ['v2', 'v3'],
    'visitors of the counted visits only',
  )
  assert.equal(visits.at.length, 2, 'only the listed visits')
  assert.deepEqual([a.human, a.lastHuman], [2, at('2026-06-01T10:40:00Z')], 'the link’s counters gain the counted human visits only')
})

test('an hour’s breakdowns count its human visits per dimension, a missing value under its label; bots count in no breakdown', () => {
  const phone: ProfileInput = { ...human, qr: true, referrer: 'example.com', device: 'mobile', country: 'FR' }
  const { links, profiles } = tally([
    batch([
      ['lnk_a', '2026-06-01T10:01:00Z', human, 'v1'],
      ['lnk_a', '2026-06-01T10:02:00Z', phone, 'v2'],
      ['lnk_a', '2026-06-01T10:03:00Z', phone, 'v3'],
      ['lnk_a', '2026-06-01T10:04:00Z', bot, 'v4'],
    ]),
  ])
  const hour = links.get('lnk_a')?.hours.get(at('2026-06-01T10:00:00Z'))
  assert.ok(hour)
  assert.deepEqual([hour.total, hour.human, hour.bot, hour.qr], [4, 3, 1, 2])
  const { referrer, browser, os, device, country } = facetsOf(hour, profiles.list)
  assert.deepEqual(
    { referrer, browser, os, device, country },
    {
      referrer: { direct: 1, 'example.com': 2 },
      browser: { Firefox: 3 },
      os: { Linux: 3 },
      device: { desktop: 1, mobile: 2 },
      country: { unknown: 1, FR: 2 },
    },
  )
  assert.deepEqual(addFacets(facetsOf(hour, profiles.list), { browser: { Firefox: 1, Safari: 2 } }).browser, { Firefox: 4, Safari: 2 })
})

test('an hour’s click block lists its visits in time order, even when batches came out of order', () => {
  const safari: ProfileInput = { ...human, browser: 'Safari' }
  const { links, profiles, visits } = tally([
    batch([
      ['lnk_a', '2026-06-01T10:30:00Z', human, 'v1'],
      ['lnk_a', '2026-06-01T10:50:00Z', safari, 'v2'],
    ]),
    batch([['lnk_a', '2026-06-01T10:10:00Z', bot, 'v3']]),
  ])
  const hour = links.get('lnk_a')?.hours.get(at('2026-06-01T10:00:00Z'))
  assert.ok(hour)
  const block = JSON.parse(blockOf(hour, visits, profiles.list)) as BlockColumns
  assert.deepEqual(
    [...blockVisits(block)].map((v) => [new Date(v.at).toISOString(), v.browser, v.bot]),
    [
      ['2026-06-01T10:10:00.000Z', 'Firefox', true],
      ['2026-06-01T10:30:00.000Z', 'Firefox', false],
      ['2026-06-01T10:50:00.000Z', 'Safari', false],
    ],
  )
})
