import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestServer } from '../../test/build-test-app.js'
import type { Visit } from '../stats/clicks.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const VISITS = 30_000

/** What a link holds in the tables of other features, row counts by table. */
async function heldBy(s: TestServer, linkId: string) {
  const db = s.container.storage.db
  const count = async (table: 'link_click_rollups' | 'link_click_facets' | 'link_daily_visitors' | 'conversations') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('link_id', '=', linkId)
          .executeTakeFirstOrThrow()
      ).n,
    )
  const messages = await db
    .selectFrom('messages')
    .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('conversations.link_id', '=', linkId)
    .executeTakeFirstOrThrow()
  const link = await db
    .selectFrom('links')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('id', '=', linkId)
    .executeTakeFirstOrThrow()
  return {
    links: Number(link.n),
    // Visits, not rows: a click block holds a roll-up's visits of one hour.
    clicks: Number(
      (
        await db
          .selectFrom('click_blocks')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('clicks'), eb.lit(0)).as('n'))
          .where('link_id', '=', linkId)
          .executeTakeFirstOrThrow()
      ).n,
    ),
    rollups: await count('link_click_rollups'),
    breakdowns: await count('link_click_facets'),
    visitors: await count('link_daily_visitors'),
    conversations: await count('conversations'),
    messages: Number(messages.n),
  }
}

/** Visits through the real pipeline (buffer, writer thread): one a minute from distinct visitors, so that every table fills. */
async function visitMany(s: TestServer, linkId: string, count: number): Promise<void> {
  const start = s.container.clock.now() - count * 60_000
  for (let i = 0; i < count; i++) {
    const visit: Visit = {
      linkId,
      at: start + i * 60_000,
      qr: i % 7 === 0,
      head: false,
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      userAgent: CHROME,
      referer: `https://r${i % 50}.example/`,
      country: 'DE',
    }
    s.container.clicks.record(visit)
  }
  await s.container.clicks.flush()
}

for (const backend of backends) {
  describe(`deleting a link (${backend})`, () => {
    let s: TestServer
    before(async () => {
      // Small purge batches: the purge is still under way when the test looks, however fast the machine.
      s = await startTestServer({ backend, container: { purgeBatch: 50 } })
    })
    after(() => s.close())

    const createLink = async (fields: Record<string, unknown>) => {
      const r = await s.request('POST', '/v1/links', { json: fields })
      assert.equal(r.status, 201, r.text)
      return r.body.data as { id: string; path: string }
    }
    const createConversation = async (fields: Record<string, unknown>) => {
      const r = await s.request('POST', '/v1/conversations', { json: fields })
      assert.equal(r.status, 201, r.text)
      return r.body.id as string
    }

    test('answers at once; the path is free at once; statistics and conversations go in the background, while others are served', async () => {
      const big = await createLink({ destination: 'https://old.example/', path: '/big' })
      const other = await createLink({ destination: 'https://other.example/', path: '/other' })
      await visitMany(s, big.id, VISITS)
      const linked = await Promise.all(Array.from({ length: 20 }, (_, i) => createConversation({ contact_id: `linked-${i}`, link_id: big.id })))
      for (let i = 0; i < 30; i++) assert.equal((await s.request('POST', `/v1/conversations/${linked[0]}/messages`, { json: { text: `m${i}` } })).status, 201)
      const unlinked = await createConversation({ contact_id: 'unlinked' })
      const before = await heldBy(s, big.id)
      assert.ok(before.clicks === VISITS && before.visitors === VISITS && before.rollups >= VISITS / 60 && before.messages === 30, JSON.stringify(before))
      assert.equal((await s.request('GET', '/other', { token: null })).status, 302) // cached from now on

      assert.equal((await s.request('DELETE', `/v1/links/${big.id}`)).status, 200)
      // Served while the purge runs: the other link's redirect, and the API.
      assert.equal((await s.request('GET', '/other', { token: null })).headers.location, 'https://other.example/')
      const during = await heldBy(s, big.id)
      assert.ok(during.clicks + during.visitors + during.rollups > 0, `the purge had already finished: ${JSON.stringify(during)}`)

      // Gone for every reader at once.
      assert.equal((await s.request('GET', `/v1/links/${big.id}`)).status, 404)
      assert.equal((await s.request('GET', `/v1/links/${big.id}/stats`)).status, 404)
      assert.equal((await s.request('GET', '/big', { token: null })).status, 404)
      assert.equal((await s.request('DELETE', `/v1/links/${big.id}`)).status, 404)
      assert.equal((await s.request('GET', `/v1/conversations/${linked[0]}`)).status, 404)
      assert.equal((await s.request('POST', `/v1/conversations/${linked[0]}/messages`, { json: { text: 'late' } })).status, 404)
      assert.equal((await s.request('PATCH', `/v1/conversations/${linked[1]}`, { json: { is_muted: true } })).status, 404)
      const listed = (await s.request('GET', '/v1/conversations?limit=100')).body.data as { id: string }[]
      assert.deepEqual(
        listed.map((c) => c.id),
        [unlinked],
      )
      assert.equal((await s.request('GET', `/v1/conversations?link_id=${big.id}`)).body.data.length, 0)
      // Its path and its conversations' counterparts are free at once.
      const successor = await createLink({ destination: 'https://new.example/', path: '/big' })
      assert.equal((await s.request('GET', '/big', { token: null })).headers.location, 'https://new.example/')
      const again = await s.request('POST', '/v1/conversations', { json: { contact_id: 'linked-3' } })
      assert.equal(again.status, 201, again.text)
      assert.equal(again.body.link_id, null)

      await s.container.purger.idle()
      assert.deepEqual(await heldBy(s, big.id), { links: 0, clicks: 0, rollups: 0, breakdowns: 0, visitors: 0, conversations: 0, messages: 0 })
      assert.equal((await s.request('GET', `/v1/links/${successor.id}`)).status, 200)
      assert.equal((await s.request('GET', `/v1/links/${other.id}`)).status, 200)
      assert.equal((await s.request('GET', `/v1/conversations/${unlinked}`)).status, 200)
    })

    test('visits of a link recorded after its delete are dropped, not written to the tombstone', async () => {
      const link = await createLink({ destination: 'https://late.example/' })
      // The tombstone as a delete writes it, without the kick that would purge it at once.
      await s.container.storage.db.updateTable('links').set({ deleted_at: Date.now() }).where('id', '=', link.id).execute()
      await visitMany(s, link.id, 10)
      const held = await heldBy(s, link.id)
      assert.deepEqual({ links: held.links, clicks: held.clicks, rollups: held.rollups }, { links: 1, clicks: 0, rollups: 0 })
      s.container.purger.kick()
      await s.container.purger.idle()
      assert.equal((await heldBy(s, link.id)).links, 0)
    })
  })

  test(`a purge cut short by a crash resumes at the next start (${backend})`, async () => {
    const database = await createTestDatabase(backend)
    try {
      const first = await startTestServer({ backend, database })
      const r = await first.request('POST', '/v1/links', { json: { destination: 'https://resumed.example/' } })
      const id = r.body.data.id as string
      await visitMany(first, id, 2000)
      // As a crash right after the delete's commit leaves it: the tombstone, and every click.
      await first.container.storage.db.updateTable('links').set({ deleted_at: Date.now() }).where('id', '=', id).execute()
      await first.close()

      const second = await startTestServer({ backend, database })
      try {
        assert.equal((await second.request('GET', `/v1/links/${id}`)).status, 404)
        await second.container.purger.idle()
        assert.deepEqual(await heldBy(second, id), { links: 0, clicks: 0, rollups: 0, breakdowns: 0, visitors: 0, conversations: 0, messages: 0 })
      } finally {
        await second.close()
      }
    } finally {
      await database.drop()
    }
  })
}
