import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createMissingPathTally, MAX_PATH_LENGTH, MAX_PATHS_PER_HOUR, OVERFLOW_PATH } from './missing-paths.tally.js'

const HOUR = 3_600_000
const T = Date.UTC(2026, 0, 15, 12)

describe('the tally of visits to missing paths', () => {
  test('counts per domain, path and hour, with the latest time', () => {
    const tally = createMissingPathTally()
    tally.count('a.example', '/x', T + 10)
    tally.count('a.example', '/x', T + 30)
    tally.count('a.example', '/x', T + 20)
    tally.count('b.example', '/x', T)
    tally.count('a.example', '/x', T + HOUR)
    assert.deepEqual(
      tally.take().sort((p, q) => p.hour - q.hour || p.domain.localeCompare(q.domain)),
      [
        { domain: 'a.example', path: '/x', hour: T, clicks: 3, last_at: T + 30 },
        { domain: 'b.example', path: '/x', hour: T, clicks: 1, last_at: T },
        { domain: 'a.example', path: '/x', hour: T + HOUR, clicks: 1, last_at: T + HOUR },
      ],
    )
    assert.deepEqual(tally.take(), [], 'taken rows are gone')
  })

  test(`at most ${MAX_PATHS_PER_HOUR} distinct paths an hour; the rest count under ${OVERFLOW_PATH} of their domain`, () => {
    const tally = createMissingPathTally()
    for (let i = 0; i < MAX_PATHS_PER_HOUR; i++) tally.count('a.example', `/p${i}`, T)
    tally.count('a.example', '/one-too-many', T)
    tally.count('b.example', '/another', T)
    tally.count('b.example', '/and-another', T)
    // A path admitted this hour still counts as itself, in a later write too.
    const first = tally.take()
    tally.count('a.example', '/p0', T + 1)
    const rows = [...first, ...tally.take()]
    assert.equal(rows.filter((r) => r.path !== OVERFLOW_PATH).length, MAX_PATHS_PER_HOUR + 1)
    assert.deepEqual(
      rows.filter((r) => r.path === OVERFLOW_PATH).map((r) => [r.domain, r.clicks]),
      [
        ['a.example', 1],
        ['b.example', 2],
      ],
    )
    // A new hour starts afresh.
    tally.count('b.example', '/another', T + HOUR)
    assert.deepEqual(
      tally.take().map((r) => r.path),
      ['/another'],
    )
  })

  test('paths are cut to the longest a link may have, and written in printable ASCII', () => {
    const tally = createMissingPathTally()
    tally.count('a.example', `/${'x'.repeat(500)}`, T)
    tally.count('a.example', '/caf\u00e9 au\u0001lait', T)
    const paths = tally.take().map((r) => r.path)
    assert.deepEqual(paths, [`/${'x'.repeat(MAX_PATH_LENGTH - 1)}`, '/caf%E9%20au%01lait'])
  })

  test('rows of a failed write are counted again, within a bound', () => {
    const tally = createMissingPathTally()
    tally.count('a.example', '/x', T)
    const failed = tally.take()
    tally.count('a.example', '/x', T + 5)
    tally.putBack(failed)
    assert.deepEqual(tally.take(), [{ domain: 'a.example', path: '/x', hour: T, clicks: 2, last_at: T + 5 }])
    // An outage that lasts: beyond four hours' worth of rows, the rest are dropped and counted.
    const many = Array.from({ length: 5 * MAX_PATHS_PER_HOUR }, (_, i) => ({ domain: 'a.example', path: `/${i}`, hour: T, clicks: 2, last_at: T }))
    tally.putBack(many)
    assert.equal(tally.size, 4 * MAX_PATHS_PER_HOUR)
    assert.equal(tally.dropped, 2 * MAX_PATHS_PER_HOUR)
  })
})
