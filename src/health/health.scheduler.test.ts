import assert from 'node:assert/strict'
import { setImmediate as tick } from 'node:timers/promises'
import { test } from 'node:test'
import type { HealthRepository } from './health.repository.js'
import { createHealthScheduler, type HealthSchedule } from './health.scheduler.js'
import type { HealthChecks } from './health.service.js'

test('one host waits its turn while other hosts are checked; a stop ends the wait', async () => {
  const links = [
    { id: 'a1', destination: 'https://a.example/1' },
    { id: 'a2', destination: 'https://a.example/2' },
    { id: 'b1', destination: 'https://b.example/1' },
    { id: 'c1', destination: 'http://c.example/1' },
  ]
  // A host's next turn is an hour away: within this test, each host is asked once.
  const { scheduler, checked, errors } = schedulerOver(links, async () => {}, { concurrency: 4, hostIntervalMs: 3_600_000 })
  const sweep = scheduler.sweep()
  while (checked.length < 3) await tick()
  for (let i = 0; i < 20; i++) await tick()
  assert.deepEqual([...checked].sort(), ['a1', 'b1', 'c1'])
  await scheduler.stop()
  assert.deepEqual(await sweep, { held: true, checked: 3 })
  assert.ok(!checked.includes('a2'), 'a.example was not asked twice within its interval')
  assert.deepEqual(errors, [])
})

/** A scheduler over `links` whose checks run `check`; what it reports to onError is collected. */
function schedulerOver(links: { id: string; destination: string }[], check: (id: string) => Promise<void>, schedule: Partial<HealthSchedule> = {}) {
  const checked: string[] = []
  const errors: unknown[] = []
  const repo = {
    takeLease: async () => true,
    releaseLease: async () => {},
    due: async () => links.filter((l) => !checked.includes(l.id)),
  } as unknown as HealthRepository
  const checks = {
    check: async (link: { id: string }) => {
      await check(link.id)
      checked.push(link.id)
    },
  } as unknown as HealthChecks
  const scheduler = createHealthScheduler({
    repo,
    checks,
    schedule: { intervalMs: 86_400_000, concurrency: 2, hostIntervalMs: 0, busyPauseMs: 1, ...schedule },
    holder: 'me',
    now: () => Date.now(),
    onError: (error) => errors.push(error),
  })
  return { scheduler, checked, errors }
}

const LINKS = ['a', 'b', 'c', 'd'].map((id) => ({ id, destination: `https://${id}.example/` }))
const failure = (code: string) => Object.assign(new Error(code === 'SQLITE_BUSY' ? 'database is locked' : 'disk I/O error'), { code })

test('a check whose write found the database locked leaves its link due: the sweep pauses and goes on', async () => {
  let refusals = 2
  const { scheduler, checked, errors } = schedulerOver(LINKS, async (id) => {
    if (id === 'b' && refusals-- > 0) throw failure('SQLITE_BUSY')
  })
  assert.deepEqual(await scheduler.sweep(), { held: true, checked: 4 })
  assert.deepEqual([...checked].sort(), ['a', 'b', 'c', 'd'])
  assert.equal(refusals, -1, 'b was checked again after each refusal')
  assert.deepEqual(errors, [])
})

test('any other failure of a check ends the sweep and is reported', async () => {
  const { scheduler, checked, errors } = schedulerOver(LINKS, async (id) => {
    if (id === 'b') throw failure('SQLITE_IOERR')
  })
  assert.deepEqual(await scheduler.sweep(), { held: false, checked: 0 })
  assert.ok(!checked.includes('b'))
  assert.deepEqual(
    errors.map((e) => (e as { code: string }).code),
    ['SQLITE_IOERR'],
  )
})
