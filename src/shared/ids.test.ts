import assert from 'node:assert/strict'
import { mock, test } from 'node:test'
import { newId, randomBase62 } from './ids.js'

const ULID = /^blk_[0-9A-HJKMNP-TV-Z]{26}$/

test('ids made in one burst are well-formed, distinct and in the order they were made', () => {
  const ids = Array.from({ length: 20_000 }, () => newId('blk'))
  for (const id of ids) assert.match(id, ULID)
  assert.deepEqual([...ids].sort(), ids)
  assert.equal(new Set(ids).size, ids.length)
})

test('each millisecond draws new random characters, evenly over the alphabet (the byte pool refills)', (t) => {
  t.after(() => mock.timers.reset())
  // Ahead of the real clock: the factory only draws anew for a millisecond after the last id's.
  mock.timers.enable({ apis: ['Date'], now: Date.now() + 60_000 })
  // 3,000 fresh ids use 48,000 pool bytes: the 4 KiB pool is refilled a dozen times.
  const randomParts: string[] = []
  for (let i = 0; i < 3000; i++) {
    mock.timers.tick(1)
    randomParts.push(newId('blk').slice(-16))
  }
  assert.equal(new Set(randomParts).size, randomParts.length)
  const counts = new Map<string, number>()
  for (const part of randomParts) for (const c of part) counts.set(c, (counts.get(c) ?? 0) + 1)
  // 48,000 characters over 32: 1,500 each expected; a skewed mapping or a stuck pool lands far outside.
  assert.equal(counts.size, 32)
  for (const [c, n] of counts) assert.ok(n > 1300 && n < 1700, `${c}: ${n}`)
})

test('random base62 strings have the length asked for and only base62 characters', () => {
  const tokens = Array.from({ length: 100 }, () => randomBase62(40))
  for (const token of tokens) assert.match(token, /^[0-9A-Za-z]{40}$/)
  assert.equal(new Set(tokens).size, tokens.length)
})

test('random base62 strings use every character alike (no modulo bias, the pool not stuck)', () => {
  const counts = new Map<string, number>()
  for (let i = 0; i < 2000; i++) for (const c of randomBase62(31)) counts.set(c, (counts.get(c) ?? 0) + 1)
  // 62,000 characters over 62: 1,000 each expected (σ ≈ 31); `byte % 62` over all 256 values would give the first 256 % 62 = 8 characters a quarter more (1,250).
  assert.equal(counts.size, 62)
  for (const [c, n] of counts) assert.ok(n > 850 && n < 1150, `${c}: ${n}`)
})
