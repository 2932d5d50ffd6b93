import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../shared/errors.js'
import { resolveRange } from './stats.range.js'
import { cutsWithinHours, portionsOf, summarize } from './stats.series.js'
import { resolveZone, UTC } from './stats.zone.js'
import { TopLinks, TOP_LINKS_KEPT } from './top-links.js'

const at = (iso: string) => Date.parse(iso)
const isos = (list: readonly number[]) => list.map((ms) => new Date(ms).toISOString())
const HOUR = 3_600_000
/** The hour that portions of an hour divide. */
const hourOfParts = (parts: readonly { start: number }[]) => Math.floor((parts[0] as { start: number }).start / HOUR) * HOUR

test('a zone is resolved by its IANA name in any case, canonically named; anything else is 400 naming tz', () => {
  assert.equal(resolveZone('Europe/Paris').name, 'Europe/Paris')
  assert.equal(resolveZone('europe/paris').name, 'Europe/Paris')
  assert.equal(resolveZone('UTC'), UTC)
  for (const bad of ['Mars/Olympus', '+05:30', '', 'Europe/Paris/x', '05:30']) {
    assert.throws(
      () => resolveZone(bad),
      (e: unknown) => e instanceof AppError && e.statusCode === 400 && e.code === 'validation_error' && e.param === 'tz',
      bad,
    )
  }
})

test("a date's first instant in a zone: whole-hour offsets, daylight saving time, 30- and 45-minute offsets, a day without midnight", () => {
  const start = (zone: string, year: number, month: number, day: number) => new Date(resolveZone(zone).startOfDate({ year, month, day })).toISOString()
  assert.equal(start('Europe/Paris', 2026, 0, 15), '2026-01-14T23:00:00.000Z')
  assert.equal(start('Europe/Paris', 2026, 6, 15), '2026-07-14T22:00:00.000Z')
  assert.equal(start('America/New_York', 2026, 2, 8), '2026-03-08T05:00:00.000Z', 'the day the clocks go forward still begins at EST midnight')
  assert.equal(start('Asia/Kolkata', 2026, 10, 1), '2026-10-31T18:30:00.000Z')
  assert.equal(start('Asia/Kathmandu', 2026, 10, 1), '2026-10-31T18:15:00.000Z')
  // Rolled-over fields, as the range code passes them (day 0 is the last of the month before).
  assert.equal(start('Asia/Kolkata', 2026, 11, 32), '2026-12-31T18:30:00.000Z')
  // America/Santiago moves its clocks forward at midnight: 2026-09-06 begins at 01:00 local (04:00Z).
  assert.equal(start('America/Santiago', 2026, 8, 6), '2026-09-06T04:00:00.000Z')
  const paris = resolveZone('Europe/Paris')
  assert.deepEqual(paris.dateOf(at('2026-06-30T22:30:00Z')), { year: 2026, month: 6, day: 1 }, '00:30 on 1 July in Paris')
  assert.deepEqual(UTC.dateOf(at('2026-06-30T22:30:00Z')), { year: 2026, month: 5, day: 30 })
})

test('ranges in a zone: dates are its days, DST days last 23 and 25 hours, months start on its first day', () => {
  const paris = resolveZone('Europe/Paris')
  const days = resolveRange({ from: '2026-03-28', to: '2026-03-30', interval: 'day', zone: paris }, 0)
  assert.deepEqual(isos([days.from, days.to]), ['2026-03-27T23:00:00.000Z', '2026-03-30T22:00:00.000Z'])
  assert.deepEqual(isos(days.starts), ['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'])
  const autumn = resolveRange({ from: '2026-10-25', to: '2026-10-25', interval: 'hour', zone: paris }, 0)
  assert.equal(autumn.starts.length, 25)
  const months = resolveRange({ from: '2026-01-15', to: '2026-03-01', interval: 'month', zone: paris }, 0)
  assert.deepEqual(isos(months.starts), ['2025-12-31T23:00:00.000Z', '2026-01-31T23:00:00.000Z', '2026-02-28T23:00:00.000Z'])
  assert.deepEqual(isos([months.from, months.to]), ['2026-01-14T23:00:00.000Z', '2026-03-01T23:00:00.000Z'])
  // The default: the zone's last 30 days, today last.
  const now = at('2026-06-10T23:30:00Z')
  const recent = resolveRange({ interval: 'day', zone: paris }, now)
  assert.deepEqual(isos([recent.from, recent.to, recent.starts.at(-1) as number]), [
    '2026-05-12T22:00:00.000Z',
    '2026-06-11T00:00:00.000Z',
    '2026-06-10T22:00:00.000Z',
  ])
  assert.equal(recent.starts.length, 30)
  // A date-time is rounded to the hour as before; a date in a 30-minute zone is kept to the minute.
  const kolkata = resolveZone('Asia/Kolkata')
  const odd = resolveRange({ from: '2026-11-01', to: '2026-11-02T10:10:00Z', interval: 'day', zone: kolkata }, 0)
  assert.deepEqual(isos([odd.from, odd.to]), ['2026-10-31T18:30:00.000Z', '2026-11-02T11:00:00.000Z'])
  assert.deepEqual(isos(odd.starts), ['2026-10-31T18:30:00.000Z', '2026-11-01T18:30:00.000Z'])
  assert.deepEqual(
    [...cutsWithinHours(odd)].map(([hour, cuts]) => [new Date(hour).toISOString(), isos(cuts)]),
    [
      ['2026-10-31T18:00:00.000Z', ['2026-10-31T18:30:00.000Z']],
      ['2026-11-01T18:00:00.000Z', ['2026-11-01T18:30:00.000Z']],
    ],
  )
  assert.equal(cutsWithinHours(days).size, 0, 'whole-hour offsets cut no hour')
})

test('hours go to the bucket holding their start, or in portions; uniques go with an hour that begins in the range', () => {
  const kolkata = resolveZone('Asia/Kolkata')
  const range = resolveRange({ from: '2026-11-01', to: '2026-11-02', interval: 'day', zone: kolkata }, 0)
  const hour = (iso: string, human: number, uniques = 0) => ({ hour: at(iso), total: human + 1, human, bot: 1, qr: 0, uniques })
  const rows = [hour('2026-10-31T18:00:00Z', 4, 3), hour('2026-11-01T06:00:00Z', 5, 2), hour('2026-11-01T18:00:00Z', 6, 1)]
  // Rounded: the first hour starts before the range and is left out; the last starts in the first day.
  const rounded = summarize(range, rows.slice(1))
  assert.deepEqual(rounded.series, [11, 0])
  assert.deepEqual([rounded.human, rounded.bot, rounded.uniques], [11, 2, 3])
  // Split: 18:00-18:30Z belongs to the day before, 18:30-19:00Z to the next.
  const visit = (iso: string, isBot = false) => ({ clickedAt: at(iso), isBot, isQr: false })
  const first = portionsOf(at('2026-10-31T18:00:00Z'), [at('2026-10-31T18:30:00Z')], rows[0] as (typeof rows)[0], [
    visit('2026-10-31T18:10:00Z'),
    visit('2026-10-31T18:29:59.999Z'),
    visit('2026-10-31T18:30:00Z'),
    visit('2026-10-31T18:40:00Z', true),
  ])
  assert.deepEqual(
    first.map((p) => [new Date(p.start).toISOString(), p.human, p.bot]),
    [
      ['2026-10-31T18:00:00.000Z', 2, 0],
      // One human visit counted and not in a block yet: the newest, so the last part's.
      ['2026-10-31T18:30:00.000Z', 2, 1],
    ],
  )
  const last = portionsOf(at('2026-11-01T18:00:00Z'), [at('2026-11-01T18:30:00Z')], rows[2] as (typeof rows)[0], [
    visit('2026-11-01T18:05:00Z'),
    visit('2026-11-01T18:45:00Z'),
  ])
  const split = summarize(range, rows, new Map([first, last].map((parts) => [hourOfParts(parts), parts])))
  assert.deepEqual(split.series, [2 + 5 + 1, 5])
  assert.equal(split.human, 13)
  assert.equal(split.uniques, 3, 'the hour that begins before the range takes its uniques with it')
  // Without raw visits (past retention), or with more visits than the rollup counted: the whole hour, where it begins.
  assert.deepEqual(portionsOf(at('2026-10-31T18:00:00Z'), [at('2026-10-31T18:30:00Z')], rows[0] as (typeof rows)[0], undefined), [
    { start: at('2026-10-31T18:00:00Z'), total: 5, human: 4, bot: 1, qr: 0 },
  ])
  const tooMany = Array.from({ length: 5 }, () => visit('2026-10-31T18:40:00Z'))
  assert.equal(portionsOf(at('2026-10-31T18:00:00Z'), [at('2026-10-31T18:30:00Z')], rows[0] as (typeof rows)[0], tooMany).length, 1)
})

test("an hour's kept links: every kept count exact, every other link at most the bound", () => {
  const top = new TopLinks()
  const truth = new Map<string, number>()
  // Links offered in a scrambled order with growing counts, as roll-ups do.
  for (let round = 1; round <= 3; round++) {
    for (let i = 0; i < 100; i++) {
      const id = `lnk_${(i * 37) % 100}`
      const n = (truth.get(id) ?? 0) + ((i * 7) % 13) + round
      truth.set(id, n)
      top.offer(id, n)
    }
  }
  assert.equal(top.counts.size, TOP_LINKS_KEPT)
  for (const [id, n] of top.counts) assert.equal(n, truth.get(id), id)
  for (const [id, n] of truth) if (!top.counts.has(id)) assert.ok(n <= top.bound, `${id}: ${n} > ${top.bound}`)
  const kept = [...top.counts.values()].sort((a, b) => a - b)
  assert.ok(top.bound <= (kept[0] as number), 'the bound is no more than the least kept count')
  const again = TopLinks.parse(top.toJSON(), top.bound)
  assert.deepEqual([...again.counts], [...top.counts])
})
