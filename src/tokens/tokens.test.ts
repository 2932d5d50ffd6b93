import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { AmbiguousTokenError } from './tokens.service.js'

for (const backend of backends) {
  describe(`revoking a token (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    test('by id, by the token or by the prefix that the list shows, unless another active token shares it', async () => {
      // Bootstrap tokens are chosen by the operator: two may share their first characters.
      await s.container.tokens.ensure('shared-pfx-one-0123456789', 'ops')
      await s.container.tokens.ensure('shared-pfx-two-0123456789', 'ops')
      assert.equal((await s.container.tokens.list()).filter((t) => t.prefix === 'shared-pf').length, 2)
      await assert.rejects(s.container.tokens.revoke('shared-pf…'), AmbiguousTokenError)

      const byToken = await s.container.tokens.revoke('shared-pfx-one-0123456789')
      assert.equal(byToken?.ownerId, 'ops')
      assert.ok(byToken?.revokedAt)
      // Now only one active token has the prefix: it names that one.
      const byPrefix = await s.container.tokens.revoke('shared-pf…')
      assert.ok(byPrefix && byPrefix.id !== byToken.id)
      assert.equal(await s.container.tokens.revoke('shared-pf'), undefined, 'nothing active left with that prefix')

      const made = await s.container.tokens.create({ ownerId: 'acme', name: 'ci' })
      const info = (await s.container.tokens.list()).find((t) => t.id === made.id)!
      assert.equal((await s.container.tokens.revoke(info.id))?.name, 'ci')
      assert.equal(await s.container.tokens.revoke(info.id), undefined, 'already revoked')
      assert.equal(await s.container.tokens.revoke(made.token), undefined)
    })
  })
}
