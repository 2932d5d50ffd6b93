import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { newBatchSlot } from '../stats/visit-batch.js'
import { createRedirectCache, NOT_FOUND_TTL_MS, type RedirectTarget } from './redirect.cache.js'

const target = (linkId: string): RedirectTarget => ({ linkId, destination: `https://example.com/${linkId}`, status: 302, clickSlot: newBatchSlot() })

describe('redirect cache (no HTTP)', () => {
  test('answers what was filled, per domain and path, negative entries included', () => {
    const cache = createRedirectCache(10)
    cache.fill('a.test', '/x', target('1'), cache.generation())
    cache.fill('a.test', '/gone', false, cache.generation())
    assert.equal((cache.get('a.test', '/x') as RedirectTarget).linkId, '1')
    assert.equal(cache.get('a.test', '/gone'), false)
    assert.equal(cache.get('b.test', '/x'), undefined, 'another domain')
    assert.equal(cache.get('a.test', '/y'), undefined)
  })

  test('holds at most its size: a new entry evicts the oldest one not read since the clock last passed it', () => {
    const cache = createRedirectCache(3)
    for (const path of ['/a', '/b', '/c']) cache.fill('d.test', path, target(path), cache.generation())
    cache.get('d.test', '/a')
    cache.fill('d.test', '/d', target('/d'), cache.generation())
    // /a was read: it gets a second chance and /b, the next not read, goes.
    assert.deepEqual(
      ['/a', '/b', '/c', '/d'].map((p) => cache.get('d.test', p) !== undefined),
      [true, false, true, true],
    )
    // The reads above gave each a second chance, which the hand takes back as it passes: a whole turn of new entries replaces them all.
    for (const path of ['/e', '/f', '/g']) cache.fill('d.test', path, target(path), cache.generation())
    assert.deepEqual(
      ['/a', '/c', '/d', '/e', '/f', '/g'].map((p) => cache.get('d.test', p) !== undefined),
      [false, false, false, true, true, true],
    )
  })

  test('an invalidated entry is gone, its slot reused; a fill that raced with an invalidation is dropped', () => {
    const cache = createRedirectCache(2)
    cache.fill('d.test', '/a', target('a'), cache.generation())
    cache.fill('d.test', '/b', target('b'), cache.generation())
    const seen = cache.generation()
    cache.invalidate('d.test', '/a')
    assert.equal(cache.get('d.test', '/a'), undefined)
    cache.fill('d.test', '/a', target('stale'), seen)
    assert.equal(cache.get('d.test', '/a'), undefined, 'the stale fill is dropped')
    cache.fill('d.test', '/c', target('c'), cache.generation())
    assert.equal((cache.get('d.test', '/b') as RedirectTarget).linkId, 'b', 'the free slot was taken, nothing evicted')
    assert.equal((cache.get('d.test', '/c') as RedirectTarget).linkId, 'c')
  })

  test('size 0 caches nothing; suspending drops every entry and caches nothing until resumed', () => {
    const off = createRedirectCache(0)
    off.fill('d.test', '/a', target('a'), off.generation())
    assert.equal(off.get('d.test', '/a'), undefined)
    off.setEnabled(true)
    off.fill('d.test', '/a', target('a'), off.generation())
    assert.equal(off.get('d.test', '/a'), undefined, 'size 0 stays off')

    const cache = createRedirectCache(5)
    cache.fill('d.test', '/a', target('a'), cache.generation())
    cache.setEnabled(false)
    cache.fill('d.test', '/b', target('b'), cache.generation())
    assert.equal(cache.get('d.test', '/b'), undefined)
    cache.setEnabled(true)
    assert.equal(cache.get('d.test', '/a'), undefined, 'nothing cached before the gap is trusted')
    cache.fill('d.test', '/a', target('a'), cache.generation())
    assert.equal((cache.get('d.test', '/a') as RedirectTarget).linkId, 'a')
    cache.clear()
    assert.equal(cache.get('d.test', '/a'), undefined)
  })

  test('a cached 404 expires after NOT_FOUND_TTL_MS; a cached target does not', () => {
    let time = 1000
    const cache = createRedirectCache(5, { now: () => time })
    cache.fill('e.test', '/missing', false, cache.generation())
    cache.fill('e.test', '/here', target('h'), cache.generation())
    time += NOT_FOUND_TTL_MS - 1
    assert.equal(cache.get('e.test', '/missing'), false)
    time += 1
    assert.equal(cache.get('e.test', '/missing'), undefined, 'the 404 is asked again')
    assert.equal((cache.get('e.test', '/here') as RedirectTarget).linkId, 'h')
    // Filled again, it counts from then.
    cache.fill('e.test', '/missing', false, cache.generation())
    time += NOT_FOUND_TTL_MS - 1
    assert.equal(cache.get('e.test', '/missing'), false)
  })
})
