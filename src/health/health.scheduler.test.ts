import assert from 'node:assert/strict'
import { setImmediate as tick } from 'node:timers/promises'
import { test } from 'node:test'
import type { HealthRepository } from './health.repository.js'
import { createHealthScheduler } from './health.scheduler.js'
import type { HealthChecks } from './health.service.js'

test('one host waits its turn while other hosts are checked; a stop ends the wait', async () => {
  const links = [
    { id: 'a1', destination: 'https://a.example/1' },
    { id: 'a2', destination: 'https://a.example/2' },
    { id: 'b1', destination: 'https://b.example/1' },
    { id: 'c1', destination: 'http://c.example/1' },
  ]
  const checked: string[] = []
  const repo = {
    takeLease: async () => true,
    releaseLease: async () => {},
    due: async () => links.filter((l) => !checked.includes(l.id)),
  } as unknown as HealthRepository
  const checks = {
    check: async (link: { id: string }) => {
      checked.push(link.id)
      return undefined
    },
  } as unknown as HealthChecks
  // A host's next turn is an hour away: within this test, each host is asked once.
  const scheduler = createHealthScheduler({
    repo,
    checks,
    schedule: { intervalMs: 86_400_000, concurrency: 4, hostIntervalMs: 3_600_000 },
    holder: 'me',
    now: () => Date.now(),
    onError: (error) => assert.fail(String(error)),
  })
  const sweep = scheduler.sweep()
  while (checked.length < 3) await tick()
  for (let i = 0; i < 20; i++) await tick()
  assert.deepEqual([...checked].sort(), ['a1', 'b1', 'c1'])
  await scheduler.stop()
  assert.deepEqual(await sweep, { held: true, checked: 3 })
  assert.ok(!checked.includes('a2'), 'a.example was not asked twice within its interval')
})
