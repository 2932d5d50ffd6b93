import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { AppError } from '../shared/errors.js'

for (const backend of backends) {
  describe(`moving the links of a domain that is no longer configured (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAINS: 'new.example,other.example' } })
    })
    after(() => s.close())

    // Links made under an earlier LINKLINE_DOMAINS: the API cannot make them any more.
    let n = 0
    const strand = (domain: string, path: string, ownerId = 'alice') =>
      s.container.storage.db
        .insertInto('links')
        .values({
          id: `lnk_stranded${n++}`,
          owner_id: ownerId,
          domain,
          path,
          destination: `https://dest.example${path}`,
          title: null,
          created_at: 1,
          updated_at: 1,
        })
        .execute()
    const rejects = (work: Promise<unknown>, status: number, message: RegExp) =>
      assert.rejects(work, (e: unknown) => e instanceof AppError && e.statusCode === status && message.test(e.message))

    test('stranded domains are found with their link counts; moving them is all or nothing', async () => {
      await strand('old.example:8080', '/a')
      await strand('old.example:8080', '/b', 'bob')
      await strand('old.example:8080', '/docs/guide')
      await strand('gone.example', '/x')
      assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://taken.example', path: '/b' } })).status, 201)
      assert.deepEqual(await s.container.links.strandedDomains(), [
        { domain: 'gone.example', links: 1 },
        { domain: 'old.example:8080', links: 3 },
      ])
      assert.equal((await s.request('GET', '/a', { headers: { host: 'new.example' } })).status, 404)

      // /b is taken on new.example and /docs is Linkline's own there: nothing moves, both are named.
      await rejects(
        s.container.links.moveDomain('OLD.example:8080', 'new.example', { dryRun: true }),
        409,
        /^nothing moved: 2 path\(s\) of old\.example:8080 are taken on new\.example or served by Linkline itself there: \/b, \/docs\/guide$/,
      )
      await rejects(s.container.links.moveDomain('old.example:8080', 'new.example', { dryRun: false }), 409, /\/b, \/docs\/guide/)
      assert.equal((await s.container.links.strandedDomains()).find((d) => d.domain === 'old.example:8080')?.links, 3)

      await s.container.storage.db.deleteFrom('links').where('path', '=', '/docs/guide').execute()
      assert.deepEqual(await s.container.links.moveDomain('old.example:8080', 'other.example', { dryRun: true }), {
        from: 'old.example:8080',
        to: 'other.example',
        moved: 2,
      })
      assert.equal((await s.container.links.strandedDomains()).length, 2, 'a dry run changes nothing')

      // The redirect cache holds a 404 for other.example/a until the move clears it.
      assert.equal((await s.request('GET', '/a', { headers: { host: 'other.example' } })).status, 404)
      assert.deepEqual(await s.container.links.moveDomain('old.example:8080', 'other.example', { dryRun: false }), {
        from: 'old.example:8080',
        to: 'other.example',
        moved: 2,
      })
      const visit = await s.request('GET', '/a', { headers: { host: 'other.example' } })
      assert.equal(visit.status, 302)
      assert.equal(visit.headers.location, 'https://dest.example/a')
      const listed = await s.request('GET', '/v1/links?query[path]=/a')
      assert.equal(listed.body.data[0].shortUrl, 'http://other.example/a')
      assert.deepEqual(await s.container.links.strandedDomains(), [{ domain: 'gone.example', links: 1 }])
    })

    test('the target must be a configured domain; the source neither the same nor a custom domain', async () => {
      await rejects(s.container.links.moveDomain('https://gone.example', 'new.example', { dryRun: true }), 400, /^from must be a host or host:port/)
      await rejects(s.container.links.moveDomain('gone.example', 'nowhere.example', { dryRun: true }), 400, /nowhere\.example is not in LINKLINE_DOMAINS/)
      await rejects(s.container.links.moveDomain('new.example', 'NEW.example', { dryRun: true }), 400, /the two domains are the same/)
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'mine.example' } })).status, 201)
      await rejects(s.container.links.moveDomain('mine.example', 'new.example', { dryRun: true }), 400, /mine\.example is a custom domain/)
      assert.deepEqual(await s.container.links.moveDomain('nothing.example', 'new.example', { dryRun: false }), {
        from: 'nothing.example',
        to: 'new.example',
        moved: 0,
      })
    })
  })
}
