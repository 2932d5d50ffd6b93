import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'
import { BULK_PASSWORD_LIMIT } from './links.bulk.js'

for (const backend of backends) {
  describe(`bulk links (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    })
    after(() => s.close())

    const bulk = (links: unknown, token = s.token) => s.request('POST', '/v1/links/bulk', { json: { links }, token })

    test('one result per item, in order; a bad item fails only itself, its param prefixed with its place', async () => {
      await s.request('POST', '/v1/links', { json: { destination: 'https://b.example/taken', path: '/b-taken' } })
      const r = await bulk([
        { destination: 'https://b.example/1', path: '/b-one', tags: ['bulk'], maxClicks: 5 },
        { destination: 'javascript:alert(1)' },
        { destination: 'https://b.example/2', path: '/b-taken' },
        { destination: 'https://b.example/3', path: '/b-twice' },
        { destination: 'https://b.example/4', path: '/b-twice' },
        { path: '/b-no-destination' },
        'not an object',
        { destination: 'https://b.example/5', rules: [{ when: { device: ['fridge'] }, destination: 'https://b.example/x' }] },
        { destination: 'https://b.example/6', colour: 'red' },
        { destination: 'https://b.example/7', rules: [{ when: {}, destination: 'mailto:x@b.example' }] },
        { destination: 'https://b.example/8', password: 'bulk-pass' },
        { destination: 'https://b.example/9' },
      ])
      assert.equal(r.status, 200, r.text)
      const results = r.body.data as {
        ok: boolean
        link?: { path: string; tags: string[]; maxClicks: number; hasPassword: boolean }
        error?: { code: string; param: string }
      }[]
      assert.equal(results.length, 12)
      assert.deepEqual(
        results.map((x) => x.ok),
        [true, false, false, true, false, false, false, false, false, false, true, true],
      )
      assert.equal(results[0]?.link?.path, '/b-one')
      assert.deepEqual(results[0]?.link?.tags, ['bulk'])
      assert.equal(results[0]?.link?.maxClicks, 5)
      assert.deepEqual(
        results.map((x) => x.error?.param ?? null),
        [
          null,
          'links[1][destination]',
          'links[2][path]',
          null,
          'links[4][path]',
          'links[5][destination]',
          'links[6]',
          'links[7][rules][0][when][device][0]',
          'links[8][colour]',
          'links[9][rules][0][destination]',
          null,
          null,
        ],
      )
      assert.equal(results[2]?.error?.code, 'conflict')
      assert.equal(results[4]?.error?.code, 'conflict')
      assert.equal(results[1]?.error?.code, 'validation_error')
      assert.equal(results[10]?.link?.hasPassword, true)
      assert.match(String(results[11]?.link?.path), /^\/[0-9A-Za-z]{7}$/)
      // Every created link redirects at once, a path that was looked up before included.
      // (A limited link tells its destination to a person's browser only.)
      assert.equal((await s.request('GET', '/b-one', { token: null, headers: { 'user-agent': CHROME } })).headers.location, 'https://b.example/1')
      assert.equal((await s.request('GET', '/b-twice', { token: null })).headers.location, 'https://b.example/3')
      assert.equal((await s.request('GET', '/v1/links?query[tag]=bulk')).body.data.length, 1)
    })

    test('the list itself: 1-1000 items, no other field; form bodies carry it JSON-encoded', async () => {
      for (const [body, param] of [
        [{}, 'links'],
        [{ links: [] }, 'links'],
        [{ links: 5 }, 'links'],
        [{ links: [{ destination: 'https://b.example/' }], extra: 1 }, 'extra'],
      ] as const) {
        const r = await s.request('POST', '/v1/links/bulk', { json: body })
        assert.equal(r.status, 400, r.text)
        assert.equal(r.body.error.param, param)
      }
      const tooMany = await bulk(Array.from({ length: 1001 }, (_, i) => ({ destination: `https://b.example/${i}` })))
      assert.equal(tooMany.status, 400)
      assert.equal(tooMany.body.error.param, 'links')
      const form = await s.request('POST', '/v1/links/bulk', { form: { links: JSON.stringify([{ destination: 'https://b.example/form', path: '/b-form' }]) } })
      assert.equal(form.status, 200, form.text)
      assert.equal(form.body.data[0].link.path, '/b-form')
    })

    test('1000 links in one request, over the 64 KiB of other bodies', async () => {
      const r = await bulk(
        Array.from({ length: 1000 }, (_, i) => ({
          destination: `https://b.example/many/${i}?utm_source=newsletter&utm_medium=email`,
          title: `Link number ${i}`,
          tags: ['many'],
        })),
      )
      assert.equal(r.status, 200)
      assert.equal(r.body.data.filter((x: { ok: boolean }) => x.ok).length, 1000)
      assert.equal(new Set(r.body.data.map((x: { link: { path: string } }) => x.link.path)).size, 1000)
      const tooBig = await s.request('POST', '/v1/links/bulk', { json: { links: [{ destination: `https://b.example/?${'x'.repeat(5 * 1024 * 1024)}` }] } })
      assert.equal(tooBig.status, 413)
      const page = await s.request('GET', '/v1/links?query[tag]=many&limit=100&page=10')
      assert.equal(page.body.data.length, 100)
      assert.equal(page.body.pagination.hasMore, false)
    })

    test('at most 100 items of one request set a password; the others fail alone, naming their password', async () => {
      const items = Array.from({ length: BULK_PASSWORD_LIMIT + 3 }, (_, i) => ({
        destination: `https://b.example/locked/${i}`,
        ...(i === 7 ? {} : { password: `secret ${i}` }),
      }))
      const r = await bulk(items)
      assert.equal(r.status, 200)
      const failed = r.body.data.flatMap((x: { ok: boolean; error?: { code: string; param: string } }, i: number) =>
        x.ok ? [] : [[i, x.error?.code, x.error?.param]],
      )
      // Item 7 sets none: the 101st password is item 101's.
      assert.deepEqual(failed, [
        [BULK_PASSWORD_LIMIT + 1, 'validation_error', `links[${BULK_PASSWORD_LIMIT + 1}][password]`],
        [BULK_PASSWORD_LIMIT + 2, 'validation_error', `links[${BULK_PASSWORD_LIMIT + 2}][password]`],
      ])
      assert.equal(r.body.data[7].link.hasPassword, false)
      assert.equal(r.body.data[BULK_PASSWORD_LIMIT].link.hasPassword, true)
    })

    test("bulk delete: one result per id; unknown and other owners' ids are deleted: false", async () => {
      const made = (
        await bulk([
          { destination: 'https://b.example/d1', path: '/b-d1' },
          { destination: 'https://b.example/d2', path: '/b-d2' },
        ])
      ).body.data
      const bob = await s.createToken('bob')
      const bobs = (await bulk([{ destination: 'https://b.example/bob', path: '/b-bob' }], bob)).body.data[0].link
      assert.equal((await s.request('GET', '/b-d1', { token: null })).status, 302)
      const ids = [made[0].link.id, 'lnk_nothing', bobs.id, made[1].link.id]
      const r = await s.request('POST', '/v1/links/bulk-delete', { json: { ids } })
      assert.equal(r.status, 200, r.text)
      assert.deepEqual(r.body.data, [
        { id: ids[0], deleted: true },
        { id: 'lnk_nothing', deleted: false },
        { id: bobs.id, deleted: false },
        { id: ids[3], deleted: true },
      ])
      assert.equal((await s.request('GET', '/b-d1', { token: null })).status, 404)
      assert.equal((await s.request('GET', `/v1/links/${ids[0]}`)).status, 404)
      assert.equal((await s.request('GET', '/b-bob', { token: null })).status, 302)
      const empty = await s.request('POST', '/v1/links/bulk-delete', { json: { ids: [] } })
      assert.equal(empty.status, 400)
      assert.equal(empty.body.error.param, 'ids')
      const readOnly = await s.createToken('alice', ['links:read'])
      assert.equal((await s.request('POST', '/v1/links/bulk-delete', { json: { ids }, token: readOnly })).status, 403)
      assert.equal((await bulk([{ destination: 'https://b.example/' }], readOnly)).status, 403)
    })
  })
}
