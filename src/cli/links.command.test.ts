import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { cli, ROOT } from '../../test/process.js'

const FIXTURES = `${ROOT}test/fixtures/import/`

type Link = { path: string; domain: string; destination: string; title: string | null }

for (const backend of backends)
  describe(`linkline links import and export (${backend})`, () => {
    let s: TestServer
    let dir: string
    before(async () => {
      s = await startTestServer({ backend })
      dir = mkdtempSync(join(tmpdir(), 'linkline-import-'))
    })
    after(async () => {
      await s.close()
      rmSync(dir, { recursive: true, force: true })
    })

    /** The CLI against the test server's own database and domains. */
    const linkline = (...args: string[]) => cli(args, s.env)
    const file = (name: string, lines: string[]) => {
      const path = join(dir, name)
      writeFileSync(path, `${lines.join('\n')}\n`)
      return path
    }
    const links = async (token = s.token): Promise<Link[]> =>
      (await s.request('GET', '/v1/links/export?format=ndjson', { token })).text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Link)
    const at = async (path: string, token = s.token) => (await links(token)).find((l) => l.path === path)

    test("each service's sample file imports, mapped to Linkline's fields", async () => {
      const cases: [string, string, Record<string, [string, string | null]>][] = [
        [
          'links.csv',
          'csv',
          { '/plain-one': ['https://example.com/plain-one', 'Plain one'], '/plain-two': ['https://example.com/plain-two', 'Quoted, with a comma'] },
        ],
        // bit.ly and go.acme.example are not the owner's domains here: the default domain, with Bitly's own code as the path.
        [
          'bitly.csv',
          'bitly',
          { '/3xYzAbc': ['https://shop.example/summer?utm_source=bitly', 'Summer sale'], '/4kDocs1': ['https://docs.example/start', 'Docs'] },
        ],
        ['shlink.csv', 'shlink', { '/abc123': ['https://example.com/shlink-one', 'Shlink one'], '/promo': ['https://example.com/promo', null] }],
        ['kutt.json', 'kutt', { '/kutt1': ['https://example.com/kutt-one', 'Kutt one'], '/kutt-two': ['https://example.com/kutt-two', null] }],
        ['yourls.csv', 'yourls', { '/yl1': ['https://example.com/yourls-one', 'YOURLS one'], '/yl-2': ['https://example.com/yourls-two', null] }],
      ]
      // Which links went to another domain than they had, and where: said, not done silently.
      const moved: Record<string, string[]> = {
        'bitly.csv': ['bit.ly', 'go.acme.example'].map((from) => `  1 link of ${from} (not a domain of the owner here) on ${s.host}`),
        'shlink.csv': [`  2 links of s.test (not a domain of the owner here) on ${s.host}`],
      }
      for (const [name, format, expected] of cases) {
        // Every other file without --format: told from its header.
        const named = name === 'bitly.csv' ? ['--format', format] : []
        const r = await linkline('links', 'import', `${FIXTURES}${name}`, '--owner', 'alice', ...named)
        const count = Object.keys(expected).length + (name === 'links.csv' ? 1 : 0)
        assert.equal(r.status, 0, `${name}: ${r.stdout}${r.stderr}`)
        assert.equal(r.stdout, [`created ${count}, skipped 0 (already present), failed 0`, ...(moved[name] ?? []), ''].join('\n'), name)
        for (const [path, [destination, title]] of Object.entries(expected)) {
          assert.deepEqual(await at(path).then((l) => l && [l.domain, l.destination, l.title]), [s.host, destination, title], `${name} ${path}`)
        }
      }
      // The CSV row without a path got a random one.
      assert.match((await links()).find((l) => l.destination === 'https://example.com/no-path')?.path ?? '', /^\/[A-Za-z0-9]{7}$/)
      const redirect = await s.request('GET', '/kutt1', { token: null })
      assert.equal(redirect.headers.location, 'https://example.com/kutt-one', 'imported links redirect')
    })

    test('a second run skips what is there; a conflicting link is reported, the rest imports', async () => {
      const again = await linkline('links', 'import', `${FIXTURES}links.csv`, '--owner', 'alice')
      assert.equal(again.status, 0)
      assert.equal(again.stdout, 'created 0, skipped 3 (already present), failed 0\n', 'paths and the path-less row alike')
      const bob = await s.createToken('bob')
      assert.equal((await s.request('POST', '/v1/links', { token: bob, json: { destination: 'https://bob.example/', path: '/taken-by-bob' } })).status, 201)
      const conflicting = file('conflicts.csv', [
        'destination,path,domain,title,tags',
        'https://example.com/new,/taken-by-bob,,,',
        'https://example.com/changed,/plain-one,,Plain one,',
        'https://example.com/fresh,/fresh,,,',
      ])
      const r = await linkline('links', 'import', conflicting, '--owner', 'alice')
      assert.equal(r.status, 1)
      assert.equal(
        r.stdout,
        [
          'created 1, skipped 0 (already present), failed 2',
          `  line 2: ${s.host}/taken-by-bob is already taken`,
          `  line 3: ${s.host}/plain-one is already taken`,
          '',
        ].join('\n'),
      )
      assert.equal((await at('/plain-one'))?.destination, 'https://example.com/plain-one', 'nothing overwritten')
      assert.equal((await at('/taken-by-bob', bob))?.destination, 'https://bob.example/')
      assert.ok(await at('/fresh'))
    })

    test('--dry-run checks every row and writes nothing', async () => {
      const rows = file('dry.csv', [
        'destination,path,domain,title,tags',
        'https://example.com/dry-1,/dry-1,,,',
        'https://example.com/dry-1,/dry-1,,,',
        'https://example.com/other,/dry-1,,,',
        'ftp://example.com/x,/dry-2,,,',
        'https://example.com/plain-one,/plain-one,,Plain one,',
      ])
      const r = await linkline('links', 'import', rows, '--owner', 'alice', '--dry-run', '--json')
      assert.equal(r.status, 1, r.stderr)
      const summary = JSON.parse(r.stdout) as {
        created: number
        present: number
        failed: { where: string; param: string | null; reason: string }[]
        dryRun: boolean
      }
      assert.deepEqual([summary.created, summary.present, summary.dryRun], [1, 2, true])
      assert.deepEqual(
        summary.failed.map((f) => [f.where, f.param]),
        [
          ['line 4', 'path'],
          ['line 5', 'destination'],
        ],
      )
      assert.equal(await at('/dry-1'), undefined, 'nothing written')
    })

    test('broken rows: the good ones import, the bad ones are listed with their line and reason', async () => {
      const r = await linkline('links', 'import', `${FIXTURES}broken.csv`, '--owner', 'carol')
      assert.equal(r.status, 1)
      const [head, ...reasons] = r.stdout.trimEnd().split('\n')
      assert.equal(head, 'created 2, skipped 0 (already present), failed 4')
      assert.deepEqual(
        reasons.map((l) => /^ {2}(line \d+): /.exec(l)?.[1]),
        ['line 3', 'line 4', 'line 5', 'line 6'],
      )
      assert.match(reasons[0] as string, /destination must be an absolute http or https URL/)
      assert.match(reasons[1] as string, /path must start with \//)
      assert.match(reasons[2] as string, /Quote/)
      assert.match(reasons[3] as string, /domain "nope.example"/)
      const carol = await s.createToken('carol')
      assert.deepEqual((await links(carol)).map((l) => l.path).sort(), ['/ok-1', '/ok-5'])
    })

    test('unknown format, unreadable file, a file of another format: one line naming the format to use, and exit 2', async () => {
      const binary = join(dir, 'binary.csv')
      writeFileSync(binary, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08]))
      const cases: [string, string[], string][] = [
        ['links.csv', ['--format', 'xml'], 'unknown format "xml": use one of csv, ndjson, bitly, shlink, kutt, yourls'],
        ['links.csv', ['--format', 'bitly'], 'not a bitly file: no destinationurl or longurl column in the header; it looks like a csv file: use --format csv'],
        ['links.csv', ['--format', 'kutt'], 'not a kutt file: it is CSV, not JSON; it looks like a csv file: use --format csv'],
        ['kutt.json', ['--format', 'csv'], 'not a csv file: it is JSON, not CSV; it looks like a kutt file: use --format kutt'],
        ['shlink.csv', ['--format', 'csv'], 'not a csv file: no destination column in the header; it looks like a shlink file: use --format shlink'],
        [file('unknown.csv', ['name,target', 'a,b']), [], 'cannot tell the format from the header (name,target): name it with --format'],
        [binary, [], 'not a text file (it holds NUL bytes)'],
        [join(dir, 'nope.csv'), [], `cannot read ${join(dir, 'nope.csv')}: ENOENT`],
      ]
      for (const [name, options, message] of cases) {
        const path = name.startsWith('/') ? name : `${FIXTURES}${name}`
        const r = await linkline('links', 'import', path, '--owner', 'alice', ...options)
        assert.equal(r.status, 2, `${name} ${options.join(' ')}`)
        const expected = options[1] === 'xml' || name.endsWith('nope.csv') ? message : `${path}: ${message}`
        assert.equal(r.stderr, `linkline: ${expected}\n`, `${name} ${options.join(' ')}`)
      }
      assert.match((await linkline('links', 'import', `${FIXTURES}links.csv`)).stderr, /--owner/)
    })

    test('an unclosed quote costs its line only; a Kutt link with a password is refused, not opened; every skip has its line', async () => {
      const unclosed = file('unclosed.csv', [
        'destination,path,domain,title,tags',
        'https://example.com/uq-1,/uq-1,,"fine, quoted",',
        'https://example.com/uq-2,/uq-2,,"never closed,',
        'https://example.com/uq-3,/uq-3,,after it,',
        '',
        'https://example.com/uq-4,/uq-4,,"again never closed',
        'https://example.com/uq-5,/uq-5,,"multi',
        'line",',
      ])
      const r = await linkline('links', 'import', unclosed, '--owner', 'erin')
      assert.equal(r.status, 1)
      assert.equal(
        r.stdout,
        [
          'created 3, skipped 0 (already present), failed 2',
          '  line 3: a quote opened on this line is never closed; read on from the next line',
          '  line 6: a quote opened on this line is never closed; read on from the next line',
          '',
        ].join('\n'),
      )
      const erin = await s.createToken('erin')
      assert.deepEqual((await links(erin)).map((l) => [l.path, l.title]).sort(), [
        ['/uq-1', 'fine, quoted'],
        ['/uq-3', 'after it'],
        ['/uq-5', 'multi\nline'],
      ])

      const kutt = file('kutt-password.json', [
        JSON.stringify({
          data: [
            { address: 'kp-open', target: 'https://example.com/open', password: false, domain: null },
            { address: 'kp-locked', target: 'https://example.com/locked', password: true, domain: null },
          ],
        }),
      ])
      const k = await linkline('links', 'import', kutt, '--owner', 'erin')
      assert.equal(k.status, 1)
      assert.match(k.stdout, /^created 1, skipped 0 \(already present\), failed 1\n {2}item 2: password-protected in Kutt, which does not export passwords/)
      assert.equal(await at('/kp-locked', erin), undefined, 'not imported open')
    })

    test("Bitly's own code is the path when free, else its branded back-half; a hash not of Linkline's format is refused", async () => {
      const frank = await s.createToken('frank')
      assert.equal((await s.request('POST', '/v1/links', { token: frank, json: { destination: 'https://frank.example/', path: '/bl-taken' } })).status, 201)
      const bitly = file('bitly-codes.csv', [
        'Title,Link,Custom Link,Destination URL,Date Created,Tags',
        'Free,https://bit.ly/bl-free,go.acme.example/bl-branded-1,https://example.com/free,2024-05-01 10:00:00,',
        'Taken,https://bit.ly/bl-taken,go.acme.example/bl-branded-2,https://example.com/taken,2024-05-01 10:00:00,',
      ])
      const r = await linkline('links', 'import', bitly, '--owner', 'gina')
      assert.equal(r.status, 0, r.stdout)
      assert.match(r.stdout, / {2}2 links of go\.acme\.example \(not a domain of the owner here\) on /)
      const gina = await s.createToken('gina')
      assert.deepEqual((await links(gina)).map((l) => [l.path, l.destination]).sort(), [
        ['/bl-branded-2', 'https://example.com/taken'],
        ['/bl-free', 'https://example.com/free'],
      ])
      assert.equal((await linkline('links', 'import', bitly, '--owner', 'gina')).stdout.split('\n')[0], 'created 0, skipped 2 (already present), failed 0')

      const hashes = file('hashes.csv', [
        'destination,path,hasPassword,passwordHash',
        'https://example.com/h1,/h-plain,true,open sesame',
        'https://example.com/h2,/h-weak,true,scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'https://example.com/h3,/h-none,true,',
      ])
      const h = await linkline('links', 'import', hashes, '--owner', 'gina')
      assert.equal(h.status, 1)
      assert.deepEqual(h.stdout.trimEnd().split('\n').slice(1), [
        "  line 2: passwordHash must be a password hash as Linkline's export writes it (scrypt$N$r$p$salt$hash)",
        "  line 3: passwordHash must be a password hash as Linkline's export writes it (scrypt$N$r$p$salt$hash)",
        '  line 4: the link is password-protected but the file has no passwordHash for it: it would be open here',
      ])
    })

    test('links export writes what the API exports, to stdout', async () => {
      for (const format of ['csv', 'ndjson']) {
        const r = await linkline('links', 'export', '--owner', 'alice', '--format', format)
        assert.equal(r.status, 0, r.stderr)
        assert.equal(r.stdout, (await s.request('GET', `/v1/links/export?format=${format}`)).text, format)
      }
      // Linkline's own CSV export reads back as the plain CSV format: all present already.
      const exported = file('exported.csv', [(await linkline('links', 'export', '--owner', 'alice')).stdout.trimEnd()])
      const back = await linkline('links', 'import', exported, '--owner', 'alice')
      assert.equal(back.status, 0, back.stdout)
      assert.match(back.stdout, /^created 0, skipped \d+ \(already present\), failed 0\n$/)
    })
  })
