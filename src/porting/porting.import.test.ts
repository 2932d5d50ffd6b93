import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { ROOT } from '../../test/process.js'
import { IMPORT_BODY_LIMIT } from './porting.schemas.js'

const fixture = (name: string) => readFileSync(`${ROOT}test/fixtures/import/${name}`, 'utf8')

type Result = {
  line: number
  status: 'created' | 'skipped' | 'failed'
  path: string | null
  link?: { id: string; path: string }
  error?: { code: string; message: string; param: string | null }
}
type Answer = {
  format: string
  dryRun: boolean
  created: number
  skipped: number
  failed: number
  moved: { from: string; to: string; links: number }[]
  results: Result[]
}

for (const backend of backends)
  describe(`POST /v1/links/import (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    const send = (text: string, query = '', options: { token?: string; type?: string } = {}) =>
      s.request('POST', `/v1/links/import${query}`, {
        raw: text,
        headers: { 'content-type': options.type ?? 'text/csv' },
        ...(options.token === undefined ? {} : { token: options.token }),
      })
    const imported = async (text: string, query = '', options: { token?: string; type?: string } = {}) => {
      const r = await send(text, query, options)
      assert.equal(r.status, 200, r.text)
      assert.equal(r.body.success, true)
      return r.body.data as Answer
    }
    const paths = async (token = s.token) =>
      (await s.request('GET', '/v1/links/export?format=ndjson', { token })).text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { path: string }).path)
        .sort()
    const auditActions = async () => (await s.request('GET', '/v1/audit-log?limit=100')).body.data as { action: string; resourceId: string | null }[]

    test("each format is told from the file's start, and each imports", async () => {
      const ndjson = [
        '{"destination":"https://example.com/nd-1","path":"/nd-1","title":"One"}',
        '{"destination":"https://example.com/nd-2","path":"/nd-2"}',
        '',
      ].join('\n')
      const cases: [string, string, string, string[]][] = [
        ['links.csv', fixture('links.csv'), 'csv', ['/plain-one', '/plain-two']],
        ['links.ndjson', ndjson, 'ndjson', ['/nd-1', '/nd-2']],
        ['bitly.csv', fixture('bitly.csv'), 'bitly', ['/3xYzAbc', '/4kDocs1']],
        ['shlink.csv', fixture('shlink.csv'), 'shlink', ['/abc123', '/promo']],
        ['kutt.json', fixture('kutt.json'), 'kutt', ['/kutt1', '/kutt-two']],
        ['yourls.csv', fixture('yourls.csv'), 'yourls', ['/yl1', '/yl-2']],
      ]
      for (const [name, text, format, expected] of cases) {
        const type = name.endsWith('.csv') ? 'text/csv' : name.endsWith('.json') ? 'application/json' : 'text/plain'
        const answer = await imported(text, '', { type })
        assert.equal(answer.format, format, name)
        assert.equal(answer.failed, 0, `${name}: ${JSON.stringify(answer.results)}`)
        for (const path of expected)
          assert.ok(
            answer.results.some((r) => r.status === 'created' && r.path === path && r.link?.path === path),
            `${name} ${path}`,
          )
      }
      const stored = await paths()
      for (const [, , , expected] of cases) for (const path of expected) assert.ok(stored.includes(path), path)
      const bitly = await imported(fixture('bitly.csv'), '?format=bitly&dryRun=true')
      assert.deepEqual(
        bitly.moved.map((m) => [m.from, m.to]),
        [
          ['bit.ly', s.host],
          ['go.acme.example', s.host],
        ],
        'the links that could not keep their domain are said to have moved',
      )
    })

    test('a dry run reports every row and writes nothing, not even an audit entry', async () => {
      const file = ['destination,path,title', 'https://example.com/dry-1,/dry-1,Dry', 'https://example.com/dry-2,,Random', 'ftp://example.com/x,/dry-3,'].join(
        '\n',
      )
      const entries = (await auditActions()).length
      const answer = await imported(file, '?dryRun=true')
      assert.deepEqual([answer.dryRun, answer.created, answer.skipped, answer.failed], [true, 2, 0, 1])
      assert.deepEqual(
        answer.results.map((r) => [r.line, r.status, r.path, r.link === undefined]),
        [
          [2, 'created', '/dry-1', true],
          [3, 'created', null, true],
          [4, 'failed', '/dry-3', true],
        ],
      )
      const stored = await paths()
      assert.ok(!stored.includes('/dry-1'), 'nothing written')
      assert.equal((await auditActions()).length, entries)
      assert.equal((await imported(file, '?dryRun=false')).created, 2, 'dryRun=false writes')
    })

    test('an import creates the links, audited one by one; sent again, every row is skipped', async () => {
      const file = [
        'destination,path,title,tags',
        'https://example.com/real-1,/real-1,Real one,a|b',
        'https://example.com/real-2,real-2,,',
        'https://example.com/real-3,,Random path,',
      ].join('\r\n')
      const first = await imported(file)
      assert.deepEqual([first.dryRun, first.created, first.skipped, first.failed], [false, 3, 0, 0])
      const [one, two, three] = first.results
      assert.deepEqual([one?.line, one?.status, one?.path], [2, 'created', '/real-1'])
      assert.equal(two?.path, '/real-2', 'a missing leading slash is added')
      assert.match(three?.path ?? '', /^\/[A-Za-z0-9]{7}$/)
      const link = await s.request('GET', `/v1/links/${one?.link?.id}`)
      assert.deepEqual([link.body.data.destination, link.body.data.title, link.body.data.tags], ['https://example.com/real-1', 'Real one', ['a', 'b']])
      const audited = (await auditActions()).filter((e) => e.action === 'link.created').map((e) => e.resourceId)
      for (const r of first.results) assert.ok(audited.includes(r.link?.id ?? ''), `${r.path} audited`)

      const again = await imported(file)
      assert.deepEqual([again.created, again.skipped, again.failed], [0, 3, 0])
      assert.deepEqual(
        again.results.map((r) => [r.line, r.status, r.link?.id]),
        first.results.map((r) => [r.line, 'skipped', r.link?.id]),
        'the very links, untouched',
      )
    })

    test('a bad line fails alone, with its line, code and parameter; the others import', async () => {
      const file = [
        'destination,path,title',
        'https://example.com/line-2,/line-2,',
        'javascript:alert(1),/line-3,',
        'https://example.com/line-4,/line 4,',
        'https://example.com/line-5,"/line-5,',
        'https://example.com/line-6,/line-6,',
      ].join('\n')
      const answer = await imported(file)
      assert.deepEqual([answer.created, answer.failed], [2, 3])
      const failed = answer.results.filter((r) => r.status === 'failed')
      assert.deepEqual(
        failed.map((r) => [r.line, r.error?.code, r.error?.param]),
        [
          [3, 'validation_error', 'destination'],
          [4, 'validation_error', 'path'],
          [5, 'validation_error', null],
        ],
      )
      assert.match(failed[0]?.error?.message ?? '', /destination must be an absolute http or https URL/)
      assert.match(failed[2]?.error?.message ?? '', /quote/)
      assert.deepEqual(
        answer.results.filter((r) => r.status === 'created').map((r) => r.line),
        [2, 6],
      )
    })

    test("another owner's links are never touched: a path of theirs fails as taken", async () => {
      const bob = await s.createToken('bob')
      assert.equal(
        (await s.request('POST', '/v1/links', { token: bob, json: { destination: 'https://bob.example/', path: '/bobs', title: 'Bob' } })).status,
        201,
      )
      const bobBefore = (await s.request('GET', '/v1/links/export?format=ndjson', { token: bob })).text
      const answer = await imported(['destination,path,title', 'https://example.com/mine,/bobs,Bob', 'https://bob.example/,/bobs,Bob'].join('\n'))
      assert.deepEqual(
        answer.results.map((r) => [r.status, r.error?.code, r.error?.param]),
        [
          ['failed', 'conflict', 'path'],
          ['failed', 'conflict', 'path'],
        ],
        "even a row identical to bob's link is not skipped as present: it is not alice's",
      )
      assert.equal((await s.request('GET', '/v1/links/export?format=ndjson', { token: bob })).text, bobBefore)
      assert.ok(!(await paths()).includes('/bobs'))
      // Bob's own import sees only his links: alice's are no concern of his.
      const bobs = await imported(['destination,path,title', 'https://example.com/real-1,/bob-real-1,Real one'].join('\n'), '', { token: bob })
      assert.equal(bobs.created, 1)
    })

    test('the body: at most 5 MiB (413), text in one of three types (415), not empty (400)', async () => {
      const row = 'https://example.com/big,,\n'
      const big = `destination,path,title\n${row.repeat(Math.ceil(IMPORT_BODY_LIMIT / row.length))}`
      const tooLarge = await send(big)
      assert.equal(tooLarge.status, 413)
      assert.deepEqual([tooLarge.body.success, tooLarge.body.error.code], [false, 'payload_too_large'])
      const other = await send(fixture('links.csv'), '', { type: 'application/xml' })
      assert.equal(other.status, 415)
      assert.equal(other.body.success, false)
      const empty = await send('')
      assert.equal(empty.status, 400)
      assert.equal(empty.body.error.code, 'invalid_body')
      const binary = await send('PK\u0003\u0004\u0000\u0000')
      assert.deepEqual([binary.status, binary.body.error.code, binary.body.error.message], [400, 'invalid_body', 'not a text file (it holds NUL bytes)'])
    })

    test('a wrong format is 400 on format, naming the one to use; so is a file whose format cannot be told', async () => {
      const cases: [string, string, string][] = [
        ['?format=xml', fixture('links.csv'), 'format must be one of csv, ndjson, bitly, shlink, kutt, yourls'],
        ['?format=kutt', fixture('links.csv'), 'not a kutt file: it is CSV, not JSON; it looks like a csv file: use format=csv'],
        ['?format=csv', fixture('shlink.csv'), 'not a csv file: no destination column in the header; it looks like a shlink file: use format=shlink'],
        ['', 'name,target\na,b\n', 'cannot tell the format from the header (name,target): name it with the format parameter'],
      ]
      for (const [query, text, message] of cases) {
        const r = await send(text, query)
        assert.equal(r.status, 400, query)
        assert.deepEqual([r.body.error.code, r.body.error.param, r.body.error.message], ['validation_error', 'format', message], query)
      }
      const r = await send(fixture('links.csv'), '?dryRun=maybe')
      assert.deepEqual([r.status, r.body.error.param], [400, 'dryRun'])
    })

    test('needs links:write', async () => {
      const reader = await s.createToken('alice', ['links:read'])
      const r = await send(fixture('links.csv'), '?dryRun=true', { token: reader })
      assert.deepEqual([r.status, r.body.error.code], [403, 'forbidden'])
    })
  })
