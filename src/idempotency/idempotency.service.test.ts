import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import { createManualClock } from '../shared/clock.js'
import { AppError } from '../shared/errors.js'
import { createIdempotencyRepository } from './idempotency.repository.js'
import { canonical, createIdempotencyService } from './idempotency.service.js'

describe('canonical', () => {
  test('the same fields in another order are the same text; arrays keep their order', () => {
    assert.equal(canonical({ b: 1, a: { d: [2, 1], c: null } }), canonical({ a: { c: null, d: [2, 1] }, b: 1 }))
    assert.equal(canonical({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}')
    assert.notEqual(canonical([1, 2]), canonical([2, 1]))
  })

  test('types stay apart: "1" is not 1, null is not absent in an array', () => {
    assert.notEqual(canonical({ a: '1' }), canonical({ a: 1 }))
    assert.notEqual(canonical({ a: true }), canonical({ a: 'true' }))
    assert.equal(canonical(undefined), 'null')
    assert.equal(canonical([undefined]), '[null]')
    assert.equal(canonical('é"'), '"é\\""')
  })
})

for (const backend of backends) {
  describe(`idempotency service (${backend}, no HTTP)`, () => {
    let t: TestStorage
    const clock = createManualClock()
    let service: ReturnType<typeof createIdempotencyService>
    before(async () => {
      t = await openTestStorage(backend)
      service = createIdempotencyService({ repo: createIdempotencyRepository(t.storage.db), clock })
    })
    after(() => t.close())
    const request = (body: unknown) => ({ method: 'POST', url: '/v1/links', body })

    test('the first request claims; once answered, the same request replays, another is refused', async () => {
      assert.deepEqual(await service.begin('alice', 'k1', request({ a: 1, b: 2 })), { kind: 'claimed' })
      await service.finish('alice', 'k1', 201, '{"ok":true}')
      assert.deepEqual(await service.begin('alice', 'k1', request({ b: 2, a: 1 })), { kind: 'replay', statusCode: 201, body: '{"ok":true}' })
      await assert.rejects(service.begin('alice', 'k1', request({ a: 2 })), (e: unknown) => e instanceof AppError && e.code === 'idempotency_key_reused')
      // Keys are per owner.
      assert.deepEqual(await service.begin('bob', 'k1', request({ a: 2 })), { kind: 'claimed' })
    })

    test('a 400 or a 5xx releases the key: the retry is a new request', async () => {
      for (const status of [400, 500, 503]) {
        const key = `released-${status}`
        assert.deepEqual(await service.begin('alice', key, request({ n: 1 })), { kind: 'claimed' })
        await service.finish('alice', key, status, '{}')
        assert.deepEqual(await service.begin('alice', key, request({ n: 2 })), { kind: 'claimed' }, String(status))
      }
    })

    test('a claim that never got its response is taken over after its lease (60 s); a record expires after 24 h', async () => {
      assert.deepEqual(await service.begin('alice', 'dead', request({})), { kind: 'claimed' })
      clock.advance(61_000)
      assert.deepEqual(await service.begin('alice', 'dead', request({})), { kind: 'claimed' })
      await service.finish('alice', 'dead', 201, 'first')
      clock.advance(23 * 60 * 60 * 1000)
      assert.equal((await service.begin('alice', 'dead', request({}))).kind, 'replay')
      clock.advance(2 * 60 * 60 * 1000)
      assert.deepEqual(await service.begin('alice', 'dead', request({ other: true })), { kind: 'claimed' }, 'expired: a new request')
    })

    test('prune drops the records older than 24 h and only those', async () => {
      await service.begin('carol', 'old', request({}))
      await service.finish('carol', 'old', 201, 'old')
      clock.advance(25 * 60 * 60 * 1000)
      await service.begin('carol', 'new', request({}))
      await service.finish('carol', 'new', 201, 'new')
      await service.prune()
      const keys = (await t.storage.db.selectFrom('idempotency_keys').select('key').where('owner_id', '=', 'carol').execute()).map((r) => r.key)
      assert.deepEqual(keys, ['new'])
    })
  })
}
