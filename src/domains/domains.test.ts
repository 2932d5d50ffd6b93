import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { pino } from 'pino'
import { backends, needsPostgres, needsPostgresAndRedis } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestServer } from '../../test/build-test-app.js'
import { openTestStorage } from '../../test/storage.js'
import { loadConfig } from '../config.js'
import type { TxtResolver } from './domains.verification.js'

/** A DNS stand-in: records published by the test, NXDOMAIN otherwise, or a failing resolver. */
function stubResolver() {
  const records = new Map<string, string[][]>()
  const stub = {
    records,
    failing: false,
    async resolveTxt(name: string): Promise<string[][]> {
      if (stub.failing) throw Object.assign(new Error(`queryTxt ETIMEOUT ${name}`), { code: 'ETIMEOUT' })
      const found = records.get(name)
      if (found === undefined) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
      return found
    },
  } satisfies TxtResolver & Record<string, unknown>
  return stub
}

interface Verification {
  type: string
  name: string
  value: string
}

for (const backend of backends) {
  describe(`domains (${backend})`, () => {
    let s: TestServer
    let bob: string
    const dns = stubResolver()
    let hoursAhead = 0
    const clock = { now: () => Date.now() + hoursAhead * 60 * 60 * 1000 }
    const warnings: Record<string, unknown>[] = []
    before(async () => {
      s = await startTestServer({
        backend,
        env: { LINKLINE_DOMAINS: 'sho.rt,second.example', LINKLINE_RESERVED_HOSTS: 'api.sho.rt, Admin.Example' },
        container: {
          txtResolver: dns,
          clock,
          logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as Record<string, unknown>) }),
        },
      })
      bob = await s.createToken('bob')
    })
    after(() => s.close())

    const claim = (name: string, token = s.token) => s.request('POST', '/v1/domains', { json: { name }, token })
    /** Claims a domain, publishes its TXT record in the stub and verifies it: a domain ready for links. */
    const claimVerified = async (name: string, token = s.token) => {
      const created = await claim(name, token)
      assert.equal(created.status, 201, created.text)
      const { verification } = created.body.data as { verification: Verification }
      dns.records.set(verification.name, [[verification.value]])
      const verified = await s.request('POST', `/v1/domains/${created.body.data.name}/verify`, { token })
      assert.equal(verified.body.data.status, 'verified')
      return created.body.data.name as string
    }
    const assertNameError = async (name: string, message: RegExp) => {
      const r = await claim(name)
      assert.equal(r.status, 400, `${name}: ${r.text}`)
      assert.equal(r.body.error.code, 'validation_error', name)
      assert.equal(r.body.error.param, 'name', name)
      assert.match(r.body.error.message, message, name)
    }

    test('lists the default domains first, then your own, pending until verified', async () => {
      const defaults = [
        {
          name: 'sho.rt',
          isDefault: true,
          status: 'verified',
          linkCount: 0,
          createdAt: null,
          createdBy: null,
          verifiedAt: null,
          lastCheckedAt: null,
          verification: null,
        },
        {
          name: 'second.example',
          isDefault: true,
          status: 'verified',
          linkCount: 0,
          createdAt: null,
          createdBy: null,
          verifiedAt: null,
          lastCheckedAt: null,
          verification: null,
        },
      ]
      assert.deepEqual((await s.request('GET', '/v1/domains')).body, { success: true, data: defaults })
      const created = await claim('Go.Alice.Example')
      assert.equal(created.status, 201)
      const domain = created.body.data
      assert.equal(domain.name, 'go.alice.example')
      assert.equal(domain.isDefault, false)
      assert.equal(domain.status, 'pending')
      assert.equal(domain.verifiedAt, null)
      assert.equal(domain.linkCount, 0)
      assert.equal(domain.verification.type, 'dns-txt')
      assert.equal(domain.verification.name, '_linkline.go.alice.example')
      assert.match(domain.verification.value, /^linkline-verify=[0-9a-f]{32}$/)
      assert.deepEqual((await s.request('GET', '/v1/domains/GO.alice.example')).body, { success: true, data: domain })
      const mine = (await s.request('GET', '/v1/domains')).body.data
      assert.deepEqual(mine.slice(2), [domain])
      const bobs = (await s.request('GET', '/v1/domains', { token: bob })).body.data.map((d: { name: string }) => d.name)
      assert.deepEqual(bobs, ['sho.rt', 'second.example'])
      assert.equal((await s.request('GET', '/v1/domains/go.alice.example', { token: bob })).status, 404)
    })

    test('a verified domain is 409; a malformed name is 400', async () => {
      await claimVerified('claimed.example')
      for (const [token, name] of [
        [bob, 'claimed.example'],
        [s.token, 'Claimed.Example:443'],
      ] as const) {
        const r = await claim(name, token)
        assert.equal(r.status, 409, name)
        assert.equal(r.body.error.code, 'conflict')
        assert.equal(r.body.error.param, 'name')
      }
      assert.equal((await claim('')).body.error.param, 'name')
      for (const name of [
        'has space.example',
        'a..b.example',
        '-lead.example',
        'under_score.example',
        '*.wild.example',
        'single',
        'x'.repeat(64) + '.example',
        `${'abcdefghi.'.repeat(26)}example`,
        'https://x.example',
        'x.example/path',
        'user@x.example',
        'x.example.',
        'a%2eexample',
        'x.123',
      ]) {
        await assertNameError(name, /host name/)
      }
      assert.equal((await s.request('POST', '/v1/domains', { json: {} })).body.error.param, 'name')
    })

    test('IP literals are 400 in every form the URL parser reads as an address', async () => {
      for (const name of [
        '127.0.0.1',
        '127.0.0.1:8080',
        '2130706433',
        '0x7f.1',
        '127.1',
        '0177.0.0.1',
        '10.0.0.1:80',
        '[::1]',
        '[::1]:8080',
        '[0:0:0:0:0:0:0:1]',
        '[::ffff:127.0.0.1]',
        `127.0.0.1:${new URL(s.url).port}`,
      ]) {
        await assertNameError(name, /IP address/)
      }
      await assertNameError('::1', /host name/)
    })

    test('default domains (any case or port) and reserved hosts are 400', async () => {
      for (const name of ['sho.rt', 'SHO.RT', 'sho.rt:8443', 'Second.Example:80', 'second.example:443', 'api.sho.rt', 'API.sho.rt:9000', 'admin.example']) {
        await assertNameError(name, /host name of this service/)
      }
      await assertNameError(s.host, /host name/)
    })

    test('ports: 1-65535, default ports dropped', async () => {
      for (const name of ['ports.example:0', 'ports.example:65536', 'ports.example:99999', 'ports.example:-1', 'ports.example:http']) {
        await assertNameError(name, /host name/)
      }
      assert.equal((await claim('p443.example:443')).body.data.name, 'p443.example')
      assert.equal((await claim('p80.example:80')).body.data.name, 'p80.example')
      const custom = await claim('p8443.example:08443')
      assert.equal(custom.body.data.name, 'p8443.example:8443')
      assert.equal(custom.body.data.verification.name, '_linkline.p8443.example', 'DNS knows no ports')
      assert.equal((await claim('p1.example:1')).status, 201)
      assert.equal((await claim('p65535.example:65535')).status, 201)
    })

    test('IDN names are stored in punycode, and found under either form', async () => {
      const r = await claim('Bücher.Example')
      assert.equal(r.status, 201, r.text)
      assert.equal(r.body.data.name, 'xn--bcher-kva.example')
      assert.equal(r.body.data.verification.name, '_linkline.xn--bcher-kva.example')
      const again = await claim('xn--bcher-kva.example')
      assert.equal(again.status, 200, "posting one's own pending name again renews it")
      assert.deepEqual(again.body.data, r.body.data)
      assert.equal((await s.request('GET', `/v1/domains/${encodeURIComponent('bücher.example')}`)).body.data.name, 'xn--bcher-kva.example')
    })

    test('a pending domain serves nothing and takes no link; verified, it does both', async () => {
      const name = (await claim('pending.alice.example')).body.data.name as string
      await s.request('POST', '/v1/links', { json: { destination: 'https://default.example/', path: '/p1' } })
      const refused = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', domain: name, path: '/p1' } })
      assert.equal(refused.status, 400)
      assert.equal(refused.body.error.param, 'domain')
      assert.match(refused.body.error.message, /not verified/)
      const visit = await s.request('GET', '/p1', { token: null, headers: { host: name } })
      assert.equal(visit.status, 404, 'a pending host does not fall back to the default domain either')
      assert.match(visit.text, /Link not found/)

      const unchecked = await s.request('POST', `/v1/domains/${name}/verify`)
      assert.equal(unchecked.status, 200)
      assert.equal(unchecked.body.data.status, 'pending')
      assert.notEqual(unchecked.body.data.lastCheckedAt, null)
      const { verification } = unchecked.body.data as { verification: Verification }
      dns.records.set(verification.name, [['some-other=record'], ['linkline-verify=', verification.value.slice('linkline-verify='.length)]])
      const verified = await s.request('POST', `/v1/domains/${name}/verify`)
      assert.equal(verified.status, 200)
      assert.equal(verified.body.data.status, 'verified', 'a record split into strings is joined')
      assert.notEqual(verified.body.data.verifiedAt, null)

      const ok = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', domain: name, path: '/p1' } })
      assert.equal(ok.status, 201, ok.text)
      assert.equal((await s.request('GET', '/p1', { token: null, headers: { host: name } })).headers.location, 'https://a.example/')
    })

    test('a pending claim keeps the name from nobody: the first whose record is found gets it, and the other claims end', async () => {
      const squat = await claim('squat.example', bob)
      assert.equal(squat.body.data.status, 'pending')
      const mine = await claim('squat.example')
      assert.equal(mine.status, 201, mine.text)
      assert.equal(mine.body.data.status, 'pending')
      assert.notEqual(mine.body.data.verification.value, squat.body.data.verification.value, 'each claimant has its own record')
      // The DNS owner publishes its own record; the squatter's token is of no use to anyone else.
      dns.records.set('_linkline.squat.example', [[mine.body.data.verification.value]])
      assert.equal((await s.request('POST', '/v1/domains/squat.example/verify', { token: bob })).body.data.status, 'pending')
      const verified = await s.request('POST', '/v1/domains/squat.example/verify')
      assert.equal(verified.body.data.status, 'verified', verified.text)

      assert.equal((await s.request('GET', '/v1/domains/squat.example', { token: bob })).status, 404, 'the pending claim ended')
      const bobs = (await s.request('GET', '/v1/domains', { token: bob })).body.data.map((d: { name: string }) => d.name)
      assert.ok(!bobs.includes('squat.example'))
      assert.equal((await s.request('POST', '/v1/domains/squat.example/verify', { token: bob })).status, 404)
      assert.equal((await claim('squat.example', bob)).status, 409, "a verified name is nobody else's to claim")
      const told = warnings.find((w) => w.domain === 'squat.example' && w.owner === 'bob')
      assert.match(String(told?.msg), /another owner verified the name/)
      assert.equal(told?.verifiedBy, 'alice')

      const link = await s.request('POST', '/v1/links', { json: { destination: 'https://shop.example/home', domain: 'squat.example', path: '/home' } })
      assert.equal(link.status, 201, link.text)
    })

    test('a pending claim ends after 72 hours unless its owner posts or verifies it again', async () => {
      for (const name of ['renewed-by-post.example', 'renewed-by-verify.example', 'left-alone.example']) {
        assert.equal((await claim(name)).status, 201)
      }
      try {
        hoursAhead = 48
        const reposted = await claim('renewed-by-post.example')
        assert.equal(reposted.status, 200)
        assert.equal(reposted.body.data.status, 'pending')
        assert.equal((await s.request('POST', '/v1/domains/renewed-by-verify.example/verify')).status, 200)
        hoursAhead = 73
        await s.container.domains.recheckPending()
        assert.equal((await s.request('GET', '/v1/domains/left-alone.example')).status, 404, 'not renewed for 72 hours')
        assert.ok(warnings.some((w) => w.domain === 'left-alone.example' && /within 72 hours/.test(String(w.msg))))
        assert.equal((await s.request('GET', '/v1/domains/renewed-by-post.example')).status, 200)
        assert.equal((await s.request('GET', '/v1/domains/renewed-by-verify.example')).status, 200)
        // The periodic look-ups are no renewal.
        hoursAhead = 48 + 73
        await s.container.domains.recheckPending()
        assert.equal((await s.request('GET', '/v1/domains/renewed-by-post.example')).status, 404)
        assert.equal((await s.request('GET', '/v1/domains/renewed-by-verify.example')).status, 404)
        assert.equal((await claim('left-alone.example', bob)).status, 201, 'the name is free again')
      } finally {
        hoursAhead = 0
      }
    })

    test('verify: 404 for another owner or an unknown name, 403 without domains:write', async () => {
      const name = (await claim('verify.alice.example')).body.data.name as string
      assert.equal((await s.request('POST', `/v1/domains/${name}/verify`, { token: bob })).status, 404)
      assert.equal((await s.request('POST', '/v1/domains/nobody.example/verify')).status, 404)
      const reader = await s.createToken('alice', ['domains:read'])
      assert.equal((await s.request('POST', `/v1/domains/${name}/verify`, { token: reader })).status, 403)
      assert.equal((await s.request('GET', `/v1/domains/${name}`, { token: reader })).status, 200)
    })

    test('the periodic re-check verifies pending domains; a failing resolver leaves them pending', async () => {
      const name = (await claim('recheck.alice.example')).body.data.name as string
      const { verification } = (await s.request('GET', `/v1/domains/${name}`)).body.data as { verification: Verification }
      dns.records.set(verification.name, [[verification.value]])
      dns.failing = true
      try {
        await s.container.domains.recheckPending()
      } finally {
        dns.failing = false
      }
      assert.equal((await s.request('GET', `/v1/domains/${name}`)).body.data.status, 'pending')
      assert.ok((await s.container.domains.recheckPending()) >= 1)
      assert.equal((await s.request('GET', `/v1/domains/${name}`)).body.data.status, 'verified')
    })

    test('reserved paths answer the API and the operators on a custom host', async () => {
      const name = await claimVerified('api-paths.alice.example')
      const onCustom = { headers: { host: name } }
      assert.deepEqual((await s.request('GET', '/healthz', { token: null, ...onCustom })).body, { status: 'ok' })
      assert.equal((await s.request('GET', '/readyz', { token: null, ...onCustom })).status, 200)
      assert.match((await s.request('GET', '/metrics', { token: null, ...onCustom })).text, /linkline_/)
      assert.equal((await s.request('GET', '/v1/domains', onCustom)).status, 200)
      assert.equal((await s.request('GET', '/v1/links', { token: null, ...onCustom })).status, 401)
      for (const path of ['/docs', '/v1/links', '/healthz', '/metrics/x', '/app']) {
        const r = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: name, path } })
        assert.equal(r.status, 400, path)
        assert.equal(r.body.error.param, 'path', path)
      }
    })

    test('links on a custom domain; only its owner may use it', async () => {
      const name = await claimVerified('links.alice.example')
      const ok = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'LINKS.alice.example', path: '/x' } })
      assert.equal(ok.status, 201)
      assert.equal(ok.body.data.domain, name)
      assert.equal(ok.body.data.shortUrl, 'http://links.alice.example/x')
      const theirs = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: name }, token: bob })
      assert.equal(theirs.status, 400)
      assert.equal(theirs.body.error.param, 'domain')
      const second = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'second.example', path: '/x' } })
      assert.equal(second.status, 201, 'the same path on another domain is another link')
    })

    test('delete: 409 while links use it, 404 for others, 400 for a default domain', async () => {
      await claimVerified('busy.example')
      const { body } = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'busy.example' } })
      const busy = await s.request('DELETE', '/v1/domains/busy.example')
      assert.equal(busy.status, 409)
      assert.equal(busy.body.error.code, 'conflict')
      assert.equal((await s.request('DELETE', '/v1/domains/busy.example', { token: bob })).status, 404)
      assert.equal((await s.request('DELETE', '/v1/domains/nobody.example')).status, 404)
      const def = await s.request('DELETE', '/v1/domains/sho.rt')
      assert.equal(def.status, 400)
      assert.equal(def.body.error.param, 'name')
      await s.request('DELETE', `/v1/links/${body.data.id}`)
      const freed = await s.request('DELETE', '/v1/domains/BUSY.example')
      assert.deepEqual(freed.body, { success: true, data: { name: 'busy.example', deleted: true } })
      assert.equal((await claim('busy.example', bob)).status, 201, 'free to claim again')
    })

    test("linkCount: the caller's live links on each domain, in the list and on one domain", async () => {
      const name = await claimVerified('counted.example')
      const carol = await s.createToken('carol')
      const make = (domain: string, token = carol) => s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', domain }, token })
      const ids: string[] = []
      for (let i = 0; i < 3; i++) ids.push((await make('second.example')).body.data.id)
      await make('sho.rt')
      await make('sho.rt', bob)
      await make(name, s.token)
      await make(name, s.token)
      await s.request('DELETE', `/v1/links/${ids[0]}`, { token: carol })
      const counts = async (token: string) =>
        Object.fromEntries(
          ((await s.request('GET', '/v1/domains', { token })).body.data as { name: string; linkCount: number }[]).map((d) => [d.name, d.linkCount]),
        )
      assert.deepEqual(await counts(carol), { 'sho.rt': 1, 'second.example': 2 }, "a deleted link is not counted; another owner's are not")
      assert.equal((await counts(s.token))[name], 2)
      assert.equal((await s.request('GET', `/v1/domains/${name}`)).body.data.linkCount, 2)
      assert.equal((await s.request('POST', `/v1/domains/${name}/verify`)).body.data.linkCount, 2)
      const pending = await claim('uncounted.example', carol)
      assert.equal(pending.body.data.linkCount, 0)
      assert.equal((await claim('uncounted.example', carol)).body.data.linkCount, 0, 'a renewed claim is counted too')
    })

    test("names claimed before these rules are ignored: their host is the service's again", async () => {
      const ip = `127.0.0.1:${new URL(s.url).port}`
      for (const name of [ip, 'api.sho.rt']) {
        await sql`insert into domains (name, owner_id, created_at, renewed_at) values (${name}, 'mallory', 1, 1)`.execute(s.container.storage.db)
      }
      await s.container.domains.load()
      assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://legacy.example/', path: '/legacy' } })).status, 201)
      for (const host of [ip, 'api.sho.rt']) {
        const r = await s.request('GET', '/legacy', { token: null, headers: { host } })
        assert.equal(r.headers.location, 'https://legacy.example/', host)
      }
      const mallory = await s.createToken('mallory')
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://m.example/', domain: 'api.sho.rt' }, token: mallory })
      assert.equal(r.status, 400)
      assert.equal(r.body.error.param, 'domain')
    })

    test('new links default to the first default domain', async () => {
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example' } })
      assert.equal(r.body.data.domain, 'sho.rt')
    })
  })
}

describe('domain verification settings', () => {
  test('bad values stop the start', () => {
    assert.throws(() => loadConfig({ LINKLINE_RESERVED_HOSTS: 'api.example,https://x.example/' }), /LINKLINE_RESERVED_HOSTS/)
    assert.throws(() => loadConfig({ LINKLINE_DOMAIN_VERIFICATION: 'maybe' }), /LINKLINE_DOMAIN_VERIFICATION/)
    assert.throws(() => loadConfig({ LINKLINE_DOMAIN_CHECK_INTERVAL_MS: '5' }), /LINKLINE_DOMAIN_CHECK_INTERVAL_MS/)
    const config = loadConfig({ LINKLINE_RESERVED_HOSTS: ' API.example , admin.example:8443' })
    assert.deepEqual(config.reservedHosts, ['api.example', 'admin.example:8443'])
    assert.equal(config.domainVerification, true)
  })

  test('the container re-checks pending domains on LINKLINE_DOMAIN_CHECK_INTERVAL_MS', async () => {
    const dns = stubResolver()
    const s = await startTestServer({ env: { LINKLINE_DOMAIN_CHECK_INTERVAL_MS: '100' }, container: { txtResolver: dns } })
    try {
      const created = (await s.request('POST', '/v1/domains', { json: { name: 'timer.example' } })).body.data
      dns.records.set(created.verification.name, [[created.verification.value]])
      let status = created.status
      for (let waited = 0; status === 'pending' && waited < 5000; waited += 50) {
        await sleep(50)
        status = (await s.request('GET', '/v1/domains/timer.example')).body.data.status
      }
      assert.equal(status, 'verified')
    } finally {
      await s.close()
    }
  })

  test('LINKLINE_DOMAIN_VERIFICATION=off verifies new domains at once', async () => {
    const s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    try {
      const r = await s.request('POST', '/v1/domains', { json: { name: 'closed.example' } })
      assert.equal(r.body.data.status, 'verified')
      assert.notEqual(r.body.data.verifiedAt, null)
      assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'closed.example' } })).status, 201)
    } finally {
      await s.close()
    }
  })
})

describe('domains migrated from before verification', () => {
  for (const backend of backends) {
    test(`are verified, and keep serving (${backend})`, async () => {
      const { storage, database } = await openTestStorage(backend, '0006-create-clicks')
      try {
        await sql`insert into domains (name, owner_id, created_at) values ('old.example', 'alice', 1700000000000)`.execute(storage.db)
      } finally {
        await storage.close()
      }
      const s = await startTestServer({ database })
      try {
        const r = await s.request('GET', '/v1/domains/old.example')
        assert.equal(r.body.data.status, 'verified')
        assert.equal(r.body.data.verifiedAt, '2023-11-14T22:13:20.000Z')
        assert.equal(r.body.data.verification, null)
        assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'old.example' } })).status, 201)
      } finally {
        await s.close()
        await database.drop()
      }
    })
  }
})

describe('a verification on one instance', { skip: needsPostgresAndRedis }, () => {
  test('is seen by another (PostgreSQL + Redis)', async () => {
    const database = await createTestDatabase('postgres')
    const dns = stubResolver()
    const env = { LINKLINE_DOMAINS: 'sho.rt' }
    const a = await startTestServer({ database, env, container: { txtResolver: dns } })
    const b = await startTestServer({ database, env })
    try {
      for (let waited = 0; !/^linkline_redis_up 1$/m.test((await b.request('GET', '/metrics', { token: null })).text); waited += 50) {
        assert.ok(waited < 10_000, 'Redis ready')
        await sleep(50)
      }
      const created = (await a.request('POST', '/v1/domains', { json: { name: 'shared.example' } })).body.data
      const link = { destination: 'https://a.example/shared', domain: 'shared.example', path: '/s' }
      assert.equal((await b.request('POST', '/v1/links', { json: link })).body.error?.param, 'domain', 'pending on B too')
      dns.records.set(created.verification.name, [[created.verification.value]])
      assert.equal((await a.request('POST', '/v1/domains/shared.example/verify')).body.data.status, 'verified')
      assert.equal((await b.request('GET', '/v1/domains/shared.example')).body.data.status, 'verified')
      assert.equal((await b.request('POST', '/v1/links', { json: link })).status, 201)
      assert.equal((await b.request('GET', '/s', { token: null, headers: { host: 'shared.example' } })).headers.location, 'https://a.example/shared')
      assert.equal((await a.request('GET', '/s', { token: null, headers: { host: 'shared.example' } })).headers.location, 'https://a.example/shared')
    } finally {
      await a.close()
      await b.close()
      await database.drop()
    }
  })
})

describe('a domain deleted while a link is being created on it', { skip: needsPostgres }, () => {
  test('takes the link with it: the create and its audit entry are undone, a link.deleted follows its event, and it answers 400', async () => {
    const s = await startTestServer({ backend: 'postgres', env: { LINKLINE_DOMAIN_VERIFICATION: 'off', LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true' } })
    const deleter = new pg.Client({ connectionString: s.env.DATABASE_URL })
    const observer = new pg.Client({ connectionString: s.env.DATABASE_URL })
    await deleter.connect()
    await observer.connect()
    try {
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'race.example' } })).status, 201)
      // A receiver that is never reached: its deliveries stay in the outbox, to be read.
      const hook = { url: 'http://127.0.0.1:9/hook', events: ['link.created', 'link.deleted'] }
      assert.equal((await s.request('POST', '/v1/webhooks', { json: hook })).status, 201)
      // A delete that has checked for links (none yet) and not committed: it holds the domain row.
      await deleter.query('begin')
      await deleter.query(`delete from domains where name = 'race.example'`)
      const creating = s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'race.example', path: '/race' } })
      // The create has read the domain (still there for it), written its link, and now waits for the row.
      const waiting = `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'update "domains"%'`
      for (let waited = 0; (await observer.query<{ n: number }>(waiting)).rows[0]?.n !== 1; waited += 20) {
        assert.ok(waited < 10_000, 'the create waits for the delete')
        await sleep(20)
      }
      await deleter.query('commit')
      const r = await creating
      assert.equal(r.status, 400, r.text)
      assert.equal(r.body.error.param, 'domain')
      const left = await observer.query<{ n: number }>(`select count(*)::int as n from links where domain = 'race.example'`)
      assert.equal(left.rows[0]?.n, 0, 'no link is left on a domain nobody owns')
      // Its link.created entry, written with the link, went with it: the caller was told nothing was made.
      const entries = await observer.query<{ n: number }>(`select count(*)::int as n from audit_log where action = 'link.created'`)
      assert.equal(entries.rows[0]?.n, 0, 'no entry names the link undone')
      // Its link.created event committed with the link and may have gone out: a link.deleted says it is gone.
      const events = await observer.query<{ event_type: string; payload: string }>(`select event_type, payload from webhook_deliveries order by created_at, id`)
      const sent = events.rows.map((e) => {
        const { data } = JSON.parse(e.payload) as { data: { domain: string; path: string } }
        return [e.event_type, `${data.domain}${data.path}`]
      })
      assert.deepEqual(sent, [
        ['link.created', 'race.example/race'],
        ['link.deleted', 'race.example/race'],
      ])
    } finally {
      await deleter.end()
      await observer.end()
      await s.close()
    }
  })
})
