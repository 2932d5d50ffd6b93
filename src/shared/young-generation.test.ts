import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'
import { growthFactorFor } from './young-generation.js'

test('the growth factor doubles while a doubling stays under the cap, then stops growth', () => {
  assert.equal(growthFactorFor(1, 16), 2)
  assert.equal(growthFactorFor(8, 16), 2)
  assert.equal(growthFactorFor(16, 16), 1)
  assert.equal(growthFactorFor(32, 16), 1)
  assert.equal(growthFactorFor(0, 16), 2)
})

// In a process of its own: the flags it sets are process-wide. A loop that keeps objects alive for a
// while grows an unbounded young generation to V8's maximum (64 MB semi-spaces on Node 24); the event
// loop turns between its rounds, as a server's does between requests.
const ALLOCATE = `
  const { capYoungGeneration, semiSpaceMb } = await import(process.argv[1])
  if (process.argv[2] === 'capped') capYoungGeneration(8, 10)
  let kept = []
  let peak = 0
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 100000; i++) {
      kept.push({ i, text: 'visit ' + i })
      if (kept.length > 40000) kept = []
    }
    peak = Math.max(peak, semiSpaceMb())
    await new Promise((resolve) => setTimeout(resolve, 15))
  }
  console.log(peak)
`
const peakSemiSpace = (mode: string) => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', ALLOCATE, new URL('./young-generation.js', import.meta.url).href, mode], {
    encoding: 'utf8',
  })
  assert.equal(run.status, 0, run.stderr)
  return Number(run.stdout.trim())
}

test('capYoungGeneration keeps the semi-spaces at or under the cap where V8 alone grows them past it', () => {
  // V8 grows by doubling, and looks at the growth factor only now and then: a space may pass the cap
  // by one doubling before the cap is seen (Node 26 does, in about one run of five), never by two.
  const free = peakSemiSpace('free')
  assert.ok(free >= 16, `the load grows an uncapped young generation to 16 MB or more (${free} MB)`)
  const capped = peakSemiSpace('capped')
  assert.ok(capped <= 16 && capped < free, `capped at 8 MB, grew to ${capped} MB (${free} MB uncapped)`)
  assert.ok(capped >= 8, `grows up to the cap (${capped} MB)`)
})
