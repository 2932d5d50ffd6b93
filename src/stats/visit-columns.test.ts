import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { layout } from './layout.js'
import { DIMENSION_NAMES, type Profile, type ProfileInput } from './stats.dimensions.js'
import { encodeVisits, newBatchSlot, RAW_VISIT } from './visit-batch.js'
import { blockVisits, encodeBlock, ProfileTable, VisitColumnsBuilder, visitsOf, type BlockColumns, type VisitColumns } from './visit-columns.js'

const text = fc.option(fc.string({ maxLength: 12 }), { nil: null })
const profile: fc.Arbitrary<Profile> = fc.record({
  bot: fc.boolean(),
  qr: fc.boolean(),
  ...(Object.fromEntries(DIMENSION_NAMES.map((d) => [d, text])) as Record<(typeof DIMENSION_NAMES)[number], typeof text>),
}) as fc.Arbitrary<Profile>
const time = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) })
const linkId = fc.constantFrom('lnk_a', 'lnk_b', 'lnk_c')

test('a layout reads each field at its place in the list', () => {
  const fields = ['a', 'b', 'c'] as const
  const abc = layout(fields)
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.double({ noNaN: true }), fc.double({ noNaN: true }), fc.double({ noNaN: true }))), (records) => {
      const out = records.flat()
      assert.equal(abc.width, fields.length)
      records.forEach(([a, b, c], i) => {
        assert.deepEqual(abc.read(out, i * abc.width), { a, b, c })
        assert.equal(out[i * abc.width + abc.index.b], b)
      })
    }),
  )
})

test('a raw visit batch (RAW_VISIT) decodes to the visits recorded, in order', () => {
  const raw = fc.record({
    linkId,
    at: time,
    qr: fc.boolean(),
    head: fc.boolean(),
    ip: fc.option(fc.ipV4(), { nil: undefined }),
    userAgent: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    referer: fc.option(fc.webUrl(), { nil: undefined }),
    country: fc.option(fc.constantFrom('FR', 'de', 'XX'), { nil: undefined }),
    acceptLanguage: fc.option(fc.constantFrom('fr-CH, fr;q=0.9', 'en', '*'), { nil: undefined }),
    utmLocation: fc.option(
      fc.webUrl({ withQueryParameters: true }).map((u) => `${u}&utm_source=x`),
      { nil: undefined },
    ),
    slotted: fc.boolean(),
  })
  fc.assert(
    fc.property(fc.array(raw, { maxLength: 40 }), (visits) => {
      const slots = new Map(['lnk_a', 'lnk_b', 'lnk_c'].map((id) => [id, newBatchSlot()]))
      const batch = encodeVisits(visits.map(({ slotted, ...v }) => ({ ...v, slot: slotted ? slots.get(v.linkId) : undefined })))
      const str = (i: number) => (i < 0 ? undefined : batch.strings[i])
      const decoded = visits.map((_, i) => {
        const r = RAW_VISIT.read(batch.numbers, i * RAW_VISIT.width)
        return {
          linkId: batch.links[r.link],
          at: r.at,
          qr: (r.flags & 1) !== 0,
          head: (r.flags & 2) !== 0,
          ip: str(r.ip),
          userAgent: str(r.userAgent),
          referer: str(r.referer),
          country: str(r.country),
          acceptLanguage: str(r.acceptLanguage),
          utmLocation: str(r.utmLocation),
        }
      })
      assert.deepEqual(
        decoded,
        visits.map(({ slotted: _, ...v }) => v),
      )
    }),
  )
})

test('a journal batch (JOURNAL_VISIT, PROFILE) decodes, through its JSON, to the visits pushed, in order', () => {
  const visit = fc.record({ linkId, at: time, profile, visitorKey: fc.string({ minLength: 1, maxLength: 8 }) })
  fc.assert(
    fc.property(fc.array(visit, { maxLength: 40 }), (visits) => {
      const columns = new VisitColumnsBuilder()
      for (const v of visits) columns.push(columns.intern(v.linkId), v.at, columns.profile(v.profile), columns.intern(v.visitorKey))
      const stored = JSON.parse(JSON.stringify(columns.build())) as ReturnType<VisitColumnsBuilder['build']>
      assert.deepEqual(
        [...visitsOf(stored)],
        visits.map((v) => ({ ...v.profile, linkId: v.linkId, at: v.at, visitorKey: v.visitorKey })),
      )
    }),
  )
})

test('a click block (BLOCK_VISIT, PROFILE) decodes, through its JSON, to the visits encoded, in order', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(time, profile), { maxLength: 40 }), (visits) => {
      const table = new ProfileTable()
      const pairs = visits.sort(([a], [b]) => a - b).flatMap(([at, p]) => [at, table.id(p)])
      const stored = JSON.parse(JSON.stringify(encodeBlock(pairs, table.list))) as BlockColumns
      assert.deepEqual(
        [...blockVisits(stored)],
        visits.map(([at, p]) => ({ ...p, at })),
      )
    }),
  )
})

test('the stored layouts: a journal batch and a click block serialise as pinned here (a new dimension: its value last, and `dimensions`)', () => {
  const firefox: ProfileInput = { bot: false, qr: true, referrer: 'example.com', browser: 'Firefox', os: null, device: 'desktop', country: 'FR' }
  const columns = new VisitColumnsBuilder()
  columns.push(columns.intern('lnk_a'), 1000, columns.profile(firefox), columns.intern('v1'))
  columns.push(columns.intern('lnk_a'), 1500, columns.profile({ ...firefox, bot: true, qr: false }), columns.intern('v2'))
  assert.equal(
    JSON.stringify(columns.build()),
    '{"base":1000,"strings":["lnk_a","example.com","Firefox","desktop","FR","v1","v2"],"profiles":[2,1,2,-1,3,4,-1,-1,-1,-1,-1,1,1,2,-1,3,4,-1,-1,-1,-1,-1],' +
      '"visits":[0,0,0,5,0,500,1,6],"dimensions":["referrer","browser","os","device","country","language","utmSource","utmMedium","utmCampaign","city"]}',
  )
  const table = new ProfileTable()
  assert.equal(
    JSON.stringify(encodeBlock([1000, table.id(firefox), 1200, table.id(firefox)], table.list)),
    '{"base":1000,"strings":["example.com","Firefox","desktop","FR"],"profiles":[2,0,1,-1,2,3,-1,-1,-1,-1,-1],"visits":[0,0,200,0],' +
      '"dimensions":["referrer","browser","os","device","country","language","utmSource","utmMedium","utmCampaign","city"]}',
  )
})

test('a profile stored with fewer dimensions (before one was added) reads the missing one as none', () => {
  const [first, ...rest] = DIMENSION_NAMES
  const block: BlockColumns = { base: 0, strings: ['x'], profiles: [1, ...rest.map(() => 0)], visits: [5, 0], dimensions: rest }
  const [visit] = [...blockVisits(block)]
  assert.deepEqual(visit, { bot: true, qr: false, ...Object.fromEntries(rest.map((d) => [d, 'x'])), [first as string]: null, at: 5 })
})

test('a journal batch already on disk reads as it was written', () => {
  const stored = '{"base":1000,"strings":["lnk_a","example.com","Firefox","desktop","FR","v1"],"profiles":[2,1,2,-1,3,4],"visits":[0,0,0,5]}'
  const [visit] = [...visitsOf(JSON.parse(stored) as VisitColumns)]
  assert.deepEqual(
    { referrer: visit?.referrer, browser: visit?.browser, os: visit?.os, device: visit?.device, country: visit?.country, qr: visit?.qr, bot: visit?.bot },
    { referrer: 'example.com', browser: 'Firefox', os: null, device: 'desktop', country: 'FR', qr: true, bot: false },
  )
  assert.deepEqual([visit?.linkId, visit?.at, visit?.visitorKey], ['lnk_a', 1000, 'v1'])
})
