import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { needsPostgres } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'
import { DAY_MS, dayOf } from './classify.js'
import type { ClickSink, Visit } from './clicks.js'

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

describe("a crashed instance's journal, with no traffic anywhere", { skip: needsPostgres }, () => {
  const VISITS = 25
  // Stale once 200 ms + 2 s old (90 s by default): long enough that a successor's first roll-up, at
  // its start, comes before they are, so that only the periodic look for them can count them.
  const env = { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50', LINKLINE_CLICK_ROLLUP_INTERVAL_MS: '200', LINKLINE_CLICK_BLOCK_INTERVAL_MS: '200' }
  const container = { staleJournalMs: 2000 }
  let database: TestDatabase
  const servers: TestServer[] = []
  const start = async () => {
    const server = await startTestServer({ database, env, container })
    servers.push(server)
    return server
  }

  before(async () => {
    database = await createTestDatabase('postgres')
  })
  after(async () => {
    for (const server of servers) await server.close()
    await database?.drop()
  })

  /** An instance that journals visits and dies before any roll-up of them (as kill -9 after a flush): its rows stay, under its writer id. */
  async function crashAfterJournaling(path: string): Promise<string> {
    const neverRollsUp = (sink: ClickSink): ClickSink => ({
      write: (batch) => sink.write(batch),
      rollUp: async () => {
        throw new Error('injected: the instance dies before its roll-up')
      },
      upkeep: () => sink.upkeep(),
    })
    const crashed = await startTestServer({ database, env, container: { ...container, wrapClickSink: neverRollsUp } })
    try {
      const id = (await crashed.request('POST', '/v1/links', { json: { destination: 'https://d.example/', path } })).body.data.id as string
      for (let i = 0; i < VISITS; i++) assert.equal((await crashed.request('GET', path, { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await assert.rejects(crashed.container.clicks.flush(), /dies before its roll-up/)
      return id
    } finally {
      await crashed.close()
    }
  }

  /** Waits (generously: the machine is shared) until `server` reports every visit of the link. */
  async function countedBy(server: TestServer, id: string): Promise<void> {
    let total = 0
    for (let waited = 0; waited < 60_000; waited += 100) {
      total = (await server.request('GET', `/v1/links/${id}/stats`)).body.data.totalClicks as number
      if (total === VISITS) return
      await sleep(100)
    }
    assert.fail(`${total} of ${VISITS} visits counted`)
  }

  test('an idle survivor adopts them once they are stale, without a visit of its own', async () => {
    const survivor = await start()
    // Its first roll-up (at its first tick) is over before the crashed instance writes anything.
    await sleep(300)
    await countedBy(survivor, await crashAfterJournaling('/crashed-survivor'))
  })

  test('the instance started in its place (a new writer id) adopts them too, once stale, though they were not at its start', async () => {
    const id = await crashAfterJournaling('/crashed-restarted')
    await countedBy(await start(), id)
  })
})
