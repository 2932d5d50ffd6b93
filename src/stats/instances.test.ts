import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { needsPostgres } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { DAY_MS, dayOf } from './classify.js'
import type { Visit } from './clicks.js'

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
]
const BATCH = 300
const ROUNDS = 10

describe('statistics with several instances on one PostgreSQL', { skip: needsPostgres }, () => {
  let database: TestDatabase
  let a: TestServer
  let b: TestServer

  before(async () => {
    database = await createTestDatabase('postgres')
    a = await startTestServer({ database })
    b = await startTestServer({ database })
  })
  after(async () => {
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  test('flushes of the same links and hours, from two instances at once, add up exactly, uniques included', async () => {
    const ids: string[] = []
    for (const path of ['/s1', '/s2', '/s3']) {
      ids.push((await a.request('POST', '/v1/links', { json: { destination: 'https://d.example', path } })).body.data.id)
    }
    const now = Date.now()
    // Every batch touches every link, several hours and many breakdown rows: the same upsert keys.
    const batch = (seed: number): Visit[] =>
      Array.from({ length: BATCH }, (_, i) => ({
        linkId: ids[(i + seed) % ids.length] as string,
        at: now - (i % 5) * 3_600_000,
        qr: i % 7 === 0,
        head: false,
        // Rounds share visitors, and so do the two instances: each is still one unique visitor a day.
        ip: `10.0.${seed % 3}.${i % 50}`,
        userAgent: USER_AGENTS[i % USER_AGENTS.length],
        referer: `https://r${i % 13}.example/`,
        country: undefined,
      }))
    const visitors = new Set<string>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const [server, visits] of [
        [a, batch(round)],
        [b, batch(round + 100)],
      ] as const) {
        for (const v of visits) {
          server.container.clicks.record(v)
          visitors.add(`${v.linkId} ${dayOf(v.at)} ${v.ip} ${v.userAgent}`)
        }
      }
      await Promise.all([a.container.clicks.flush(), b.container.clicks.flush()])
    }

    let total = 0
    let uniques = 0
    for (const id of ids) {
      const data = (await b.request('GET', `/v1/links/${id}/stats?from=${new Date(now - 2 * DAY_MS).toISOString()}`)).body.data
      total += data.totalClicks
      uniques += data.uniqueVisitors
    }
    assert.equal(total, 2 * ROUNDS * BATCH)
    assert.equal(uniques, visitors.size)
  })
})
