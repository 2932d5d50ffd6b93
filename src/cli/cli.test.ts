import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { createTestDatabase, type TestDatabase } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send } from '../../test/http-client.js'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { cli, cliFailure, cliJson, descendants, isAlive, MAIN, startServerProcess, tracked } from '../../test/process.js'
import { spawn, spawnSync } from 'node:child_process'

for (const backend of backends)
  describe(`the linkline CLI and the server process (${backend})`, () => {
    const databases: TestDatabase[] = []
    const databaseEnv = async () => {
      const database = await createTestDatabase(backend)
      databases.push(database)
      return database.env
    }
    // One database for the suite, a port of its own for each test: a server that a failed test left
    // running (until the file ends) does not make the next tests fail too.
    let suiteDatabase: TestDatabase['env']
    let env: { PORT: string }
    before(async () => {
      suiteDatabase = await databaseEnv()
    })
    beforeEach(async () => {
      env = { ...suiteDatabase, PORT: String(await freePort()) }
    })
    after(() => Promise.all(databases.map((d) => d.drop())))

    test('--help on every command; unknown commands and missing options fail with usage', async () => {
      for (const args of [
        ['--help'],
        ['serve', '--help'],
        ['migrate', '--help'],
        ['tokens', '--help'],
        ['tokens', 'create', '--help'],
        ['domains', '--help'],
        ['backup', '--help'],
      ]) {
        const r = await cli(args, env)
        assert.equal(r.status, 0, args.join(' '))
        assert.match(r.stdout, /Usage/)
      }
      // An inherited property of the command table is no command either.
      for (const unknown of ['frobnicate', 'constructor', '__proto__']) {
        const r = await cli([unknown], env)
        assert.equal(r.status, 2, unknown)
        assert.match(r.stderr, new RegExp(`^linkline: unknown command "${unknown}"\\n\\nUsage`), unknown)
      }
      const noOwner = await cli(['tokens', 'create'], env)
      assert.equal(noOwner.status, 2)
      assert.match(noOwner.stderr, /--owner/)
      // One parser for every command: unknown options are refused in plain words, with the usage.
      for (const args of [
        ['serve', '--bogus'],
        ['migrate', '--bogus'],
        ['tokens', 'list', '--bogus'],
        ['backup', '--bogus', 'x'],
        ['domains', 'rename', 'a', 'b', '--bogus'],
      ]) {
        const r = await cli(args, env)
        assert.equal(r.status, 2, args.join(' '))
        assert.match(r.stderr, /^linkline: unknown option --bogus\n\nUsage/, args.join(' '))
      }
      const badScope = await cli(['tokens', 'create', '--owner', 'x', '--scopes', 'links:read,links:delete'], env)
      assert.equal(badScope.status, 2)
      assert.match(badScope.stderr, /unknown scope\(s\): links:delete/)
    })

    test('migrate applies migrations once', async () => {
      const first = await cli(['migrate'], env)
      assert.equal(first.status, 0)
      assert.match(first.stdout, /applied: 0001-create-tokens/)
      assert.equal((await cli(['migrate'], env)).stdout, 'database is up to date\n')
    })

    test('first start prints one token; tokens survive a restart; CLI revocation is seen at once; SIGTERM exits 0', async () => {
      // A database of its own: the suite's was migrated by an earlier test, and this start must create the schema.
      env = { ...(await databaseEnv()), PORT: env.PORT }
      const first = await startServerProcess({ ...env, LOG_LEVEL: 'info' })
      // Printed once listening, framed, on stderr: not mixed into the JSON log lines of stdout.
      // /healthz can answer before the start line and the token have come through the pipes: wait for both.
      for (let i = 0; i < 100 && !(/ll_/.test(first.stderr()) && first.stdout().includes('"version"')); i++) await sleep(20)
      const printed = /\n={76}\nLinkline created your first API token \(owner "default", every scope\)\.\n.*\n\n {4}(ll_[\w-]{43})\n/.exec(first.stderr())?.[1]
      assert.ok(printed, `the first start prints a token: ${first.stderr()}`)
      assert.doesNotMatch(first.stdout(), /ll_/)
      assert.match(first.stderr(), new RegExp(`\\n {4}ll_[\\w-]{43}\\n\\nSign in to the dashboard \\(http://127\\.0\\.0\\.1:${env.PORT}/app/\\) with it\\.`))
      assert.match(first.stdout(), /"msg":"applied \d+ database migration\(s\), the last \d{4}-/, 'the first start says it created the schema')
      const started = first
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"version"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.equal(started.length, 1, 'one start line')
      assert.deepEqual([started[0]!.url, started[0]!.domains], [`http://127.0.0.1:${env.PORT}`, [`localhost:${env.PORT}`]])
      assert.match(
        String(started[0]!.msg),
        new RegExp(
          `^Linkline \\S+ serving localhost:${env.PORT} at http://127.0.0.1:${env.PORT} \\(dashboard: http://127.0.0.1:${env.PORT}/app/, API reference: http://127.0.0.1:${env.PORT}/docs\\)$`,
        ),
      )
      const created = await send(first.url, 'POST', '/v1/links', { token: printed, json: { destination: 'https://restart.example/', path: '/kept' } })
      assert.equal(created.status, 201)
      // The log line is written before the response, but comes through a pipe that may be read after it.
      for (let i = 0; i < 250 && !/"url":"\/v1\/links"/.test(first.stdout()); i++) await sleep(20)
      assert.match(first.stdout(), /"url":"\/v1\/links"/, 'requests are logged at info')
      assert.doesNotMatch(first.stdout(), /\/healthz/, 'probes (polled until the server answered) are not')

      const made = await cli(['tokens', 'create', '--owner', 'acme', '--name', 'ci', '--scopes', 'links:read'], env)
      assert.equal(made.status, 0, cliFailure(made))
      assert.match(made.stdout, /^ll_[\w-]{43}\n$/, 'only the token on stdout')
      const acme = made.stdout.trim()
      assert.equal((await send(first.url, 'GET', '/v1/links', { token: acme })).status, 200)
      assert.equal((await send(first.url, 'POST', '/v1/links', { token: acme, json: { destination: 'https://a.example' } })).status, 403)

      const listed = await cliJson<{ id: string; ownerId: string; name: string; scopes: string[]; prefix: string }[]>(['tokens', 'list', '--json'], env)
      const entry = listed.find((t) => t.ownerId === 'acme')
      assert.ok(entry)
      assert.deepEqual([entry.name, entry.scopes], ['ci', ['links:read']])
      assert.ok(acme.startsWith(entry.prefix))
      assert.ok(!JSON.stringify(listed).includes(acme), 'tokens are never listed in full')
      const listing = await cli(['tokens', 'list'], env)
      assert.equal(listing.status, 0, cliFailure(listing))
      const table = listing.stdout
      assert.match(table, /^PREFIX\s+NAME\s+OWNER\s+SCOPES\s+CREATED\s+STATUS\n/)
      assert.match(table, new RegExp(`\\n${entry.prefix}…\\s+ci\\s+acme\\s+links:read\\s+\\d{4}-\\d\\d-\\d\\d\\s+active\\n`))
      assert.match(table, /\s+default\s+all\s+/, 'every scope reads "all"')
      assert.ok(
        table.split('\n').every((line) => line.length <= 100),
        'fits 100 columns',
      )

      const revokedByPrefix = await cli(['tokens', 'revoke', `${entry.prefix}…`], env)
      assert.equal(revokedByPrefix.stdout, `revoked ${entry.id} (${entry.prefix}…, name ci, owner acme)\n`, 'the prefix of the list names the token')
      assert.equal((await send(first.url, 'GET', '/v1/links', { token: acme })).status, 401, 'revoked while the server runs')
      assert.equal((await cli(['tokens', 'revoke', entry.id], env)).status, 1, 'nothing left to revoke')

      // Process managers may signal twice: shutdown must stay clean.
      first.child.kill('SIGTERM')
      first.child.kill('SIGTERM')
      assert.equal(await first.exited, 0)

      const second = await startServerProcess({ ...env, LOG_LEVEL: 'info' })
      try {
        assert.doesNotMatch(second.output(), /ll_[\w-]{43}/, 'no new token on a restart')
        for (let i = 0; i < 100 && !/"version"/.test(second.stdout()); i++) await sleep(20)
        assert.match(
          second.stdout(),
          /more API tokens: npx linkline tokens create --owner default"/,
          'a restart says how to make a token for the bootstrap workspace',
        )
        assert.doesNotMatch(second.stdout(), /applied \d+ database migration/, 'nothing to migrate on a restart')
        const list = await send(second.url, 'GET', '/v1/links', { token: printed })
        assert.equal(list.status, 200)
        assert.deepEqual(
          list.body.data.map((l: { path: string }) => l.path),
          ['/kept'],
        )
        const redirect = await send(second.url, 'GET', '/kept', { headers: { host: `localhost:${env.PORT}` } })
        assert.equal(redirect.headers.location, 'https://restart.example/')
        const revoked = await cli(['tokens', 'revoke', printed!], env)
        assert.equal(revoked.status, 0, 'revocation by the token itself')
        assert.equal((await send(second.url, 'GET', '/v1/links', { token: printed })).status, 401)
      } finally {
        second.child.kill('SIGINT')
        assert.equal(await second.exited, 0)
      }
    })

    test('SIGTERM to the PID of `npm start` stops the server: the port closes and no node process stays behind', async () => {
      const server = await startServerProcess(env, { via: 'npm' })
      const below = descendants(server.child.pid!)
      assert.ok(below.length > 0, 'npm runs the server as a child')
      server.child.kill('SIGTERM')
      await server.exited
      // npm may exit as soon as it has forwarded the signal: give the server its graceful shutdown.
      for (let i = 0; i < 200 && below.some(isAlive); i++) await sleep(50)
      const leaked = below.filter(isAlive)
      for (const pid of leaked) process.kill(pid, 'SIGKILL') // else the leaked server holds this test's pipes open
      assert.deepEqual(leaked, [], 'no process of `npm start` outlives it')
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect(Number(env.PORT), '127.0.0.1')
        socket.on('connect', () => (socket.destroy(), resolve(false)))
        socket.on('error', () => resolve(true))
      })
      assert.ok(refused, 'the port is closed')
    })

    test('a start warns of links whose domain is no longer configured; `domains rename` moves them', async () => {
      const token = 'rename-token-0123456789'
      const before = { ...env, ...(await databaseEnv()), LINKLINE_BOOTSTRAP_TOKEN: token, LINKLINE_DOMAINS: 'old.example,new.example' }
      const first = await startServerProcess(before)
      for (const [path, domain] of [
        ['/a', 'old.example'],
        ['/b', 'old.example'],
        ['/b', 'new.example'],
      ] as const) {
        assert.equal((await send(first.url, 'POST', '/v1/links', { token, json: { destination: `https://d.example${path}`, path, domain } })).status, 201)
      }
      first.child.kill('SIGTERM')
      assert.equal(await first.exited, 0)

      const moved = { ...before, LINKLINE_DOMAINS: 'new.example' }
      const second = await startServerProcess(moved)
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0)
      const warnings = second
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; domain?: string; links?: number; msg: string })
        .filter((l) => l.domain !== undefined)
      assert.deepEqual(
        warnings.map((w) => [w.level, w.domain, w.links]),
        [[40, 'old.example', 2]],
        'one warning per stranded domain',
      )
      assert.match(warnings[0]!.msg, /linkline domains rename old\.example new\.example/)

      const blocked = await cli(['domains', 'rename', 'old.example', 'new.example'], moved)
      assert.equal(blocked.status, 1)
      assert.match(blocked.stderr, /nothing moved: 1 path\(s\) of old\.example are taken on new\.example .*: \/b\n/)
      assert.equal((await cli(['domains', 'rename', 'old.example', 'new.example', '--bogus'], moved)).status, 2, 'unknown options are refused')
      // Free /b on new.example by moving it aside, the way an operator would.
      const freed = await cli(['domains', 'rename', 'new.example', 'old.example'], { ...moved, LINKLINE_DOMAINS: 'old.example' })
      assert.equal(freed.stderr, 'linkline: nothing moved: 1 path(s) of new.example are taken on old.example or served by Linkline itself there: /b\n')
      assert.equal((await cli(['domains', 'rename', 'old.example', 'brand.example'], moved)).status, 1, 'only to a configured domain')

      const renamed = { ...moved, LINKLINE_DOMAINS: 'new.example,brand.example' }
      assert.equal(
        (await cli(['domains', 'rename', 'old.example', 'brand.example', '--dry-run'], renamed)).stdout,
        'would move 2 link(s) from old.example to brand.example\n',
      )
      assert.equal((await cli(['domains', 'rename', 'old.example', 'brand.example'], renamed)).stdout, 'moved 2 link(s) from old.example to brand.example\n')
      const third = await startServerProcess(renamed)
      try {
        assert.doesNotMatch(third.output(), /domains rename/, 'nothing stranded any more')
        const visit = await send(third.url, 'GET', '/a', { headers: { host: 'brand.example' } })
        assert.equal(visit.headers.location, 'https://d.example/a')
      } finally {
        third.child.kill('SIGTERM')
        assert.equal(await third.exited, 0)
      }
    })

    test('--version prints the version of package.json', async () => {
      const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
      for (const flag of ['--version', '-v']) assert.equal((await cli([flag], env)).stdout, `linkline ${version}\n`)
    })

    test('backup copies the database while the server runs, and a copy put in its place restores it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'linkline-backup-'))
      try {
        const file = join(dir, 'backup.db')
        const token = 'backup-token-0123456789'
        const live = { ...env, ...(await databaseEnv()), LINKLINE_BOOTSTRAP_TOKEN: token }
        if (backend === 'postgres') {
          const r = await cli(['backup', file], live)
          assert.equal(r.status, 2)
          assert.match(r.stderr, /for PostgreSQL use pg_dump/)
          return
        }
        const server = await startServerProcess(live)
        try {
          const create = (path: string) => send(server.url, 'POST', '/v1/links', { token, json: { destination: `https://b.example${path}`, path } })
          assert.equal((await create('/before')).status, 201)
          const r = await cli(['backup', file], live)
          assert.deepEqual([r.status, r.stdout], [0, `backed up to ${file}\n`])
          assert.ok(!existsSync(`${file}.partial`))
          assert.equal((await create('/after')).status, 201)
          assert.equal((await cli(['backup', file], live)).status, 2, 'an existing file is never overwritten')
          assert.match((await cli(['backup', file], live)).stderr, /exists already/)
        } finally {
          server.child.kill('SIGTERM')
          assert.equal(await server.exited, 0)
        }
        // Restore, as docs/operations.md says: the backup in place of the database file, no -wal or -shm beside it.
        const restoredFile = join(dir, 'restored', 'linkline.db')
        const restored = { ...live, DATABASE_URL: `sqlite:${restoredFile}` }
        mkdirSync(join(dir, 'restored'))
        copyFileSync(file, restoredFile)
        const again = await startServerProcess(restored)
        try {
          const list = await send(again.url, 'GET', '/v1/links', { token })
          assert.deepEqual(
            list.body.data.map((l: { path: string }) => l.path),
            ['/before'],
          )
          assert.equal((await send(again.url, 'GET', '/before', { headers: { host: `localhost:${env.PORT}` } })).headers.location, 'https://b.example/before')
        } finally {
          again.child.kill('SIGTERM')
          assert.equal(await again.exited, 0)
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })

    // SQLite only: PostgreSQL takes many servers.
    if (backend === 'sqlite')
      test('a second server on the same SQLite file is refused with a clear message; the CLI still runs beside the first', async () => {
        const shared = { ...env, ...(await databaseEnv()) }
        const first = await startServerProcess(shared)
        try {
          const second = spawnSync(process.execPath, [MAIN], {
            env: { ...process.env, ...shared, PORT: String(await freePort()), LOG_LEVEL: 'warn' },
            encoding: 'utf8',
            timeout: 30_000,
          })
          assert.equal(second.status, 1, second.stderr)
          assert.match(second.stderr, /another Linkline server is already serving .*linkline\.db: stop it first/)
          assert.equal((await cli(['tokens', 'list', '--json'], shared)).status, 0)
          assert.equal((await send(first.url, 'GET', '/readyz')).status, 200)
        } finally {
          first.child.kill('SIGTERM')
          assert.equal(await first.exited, 0)
        }
        // The claim ends with its server: the next one starts.
        const next = await startServerProcess(shared)
        next.child.kill('SIGTERM')
        assert.equal(await next.exited, 0)
      })

    // Once: the log format does not depend on the database.
    if (backend === 'sqlite')
      test('on a terminal the log is for people (pino-pretty); elsewhere it is JSON lines', async () => {
        const port = String(await freePort())
        const settings = { ...env, ...(await databaseEnv()), PORT: port, LINKLINE_BOOTSTRAP_TOKEN: 'terminal-token-0123456789', LOG_LEVEL: 'info' }
        // util-linux's `script` gives the server a pseudo-terminal as stdout.
        const command = `${Object.entries(settings)
          .map(([k, v]) => `${k}='${v}'`)
          .join(' ')} '${process.execPath}' '${MAIN}'`
        const terminal = tracked(spawn('script', ['-qc', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] }))
        let output = ''
        terminal.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
        try {
          for (let waited = 0; !output.includes('serving localhost'); waited += 50) {
            assert.ok(waited < 20_000 && terminal.exitCode === null, `no start line: ${output}`)
            await sleep(50)
          }
          assert.match(output, /\[\d\d:\d\d:\d\d\] .*INFO.*: .*Linkline \S+ serving localhost/)
          assert.doesNotMatch(output, /"level":30/)
        } finally {
          await send(`http://127.0.0.1:${port}`, 'GET', '/healthz').catch(() => undefined)
          terminal.kill('SIGTERM')
          await once(terminal, 'exit')
        }
        const piped = await startServerProcess({ ...settings, PORT: String(await freePort()) })
        piped.child.kill('SIGTERM')
        await piped.exited
        assert.match(piped.stdout(), /^\{"level":30,.*"msg":"Linkline \S+ serving/m)
      })

    test('LINKLINE_BOOTSTRAP_TOKEN is ensured once, across restarts', async () => {
      const bootstrap = { ...env, ...(await databaseEnv()), LINKLINE_BOOTSTRAP_TOKEN: 'bootstrap-token-0123456789', LINKLINE_BOOTSTRAP_OWNER: 'ops' }
      for (let run = 0; run < 2; run++) {
        const server = await startServerProcess(bootstrap)
        const r = await send(server.url, 'POST', '/v1/links', { token: bootstrap.LINKLINE_BOOTSTRAP_TOKEN, json: { destination: 'https://b.example' } })
        assert.equal(r.body.data.ownerId, 'ops')
        assert.doesNotMatch(server.output(), /ll_[\w-]{43}/)
        server.child.kill('SIGTERM')
        assert.equal(await server.exited, 0)
      }
      const owners = (await cliJson<{ ownerId: string }[]>(['tokens', 'list', '--json'], bootstrap)).map((t) => t.ownerId)
      assert.deepEqual(owners, ['ops'])
    })

    test('serve takes --port and --host; a busy port stops the start before the first token is made', async () => {
      const fresh = { ...env, ...(await databaseEnv()) }
      const port = await freePort()
      const blocker = createServer().listen(port, '127.0.0.1')
      await once(blocker, 'listening')
      const busy = await cli(['serve', '--port', String(port)], fresh)
      blocker.close()
      assert.equal(busy.status, 1)
      assert.match(
        busy.stderr,
        new RegExp(`^linkline: 127\\.0\\.0\\.1:${port} is already in use by another process \\(EADDRINUSE\\): stop it, or set PORT or HOST`),
      )
      assert.doesNotMatch(busy.stdout + busy.stderr, /ll_[\w-]{43}/)

      const server = await startServerProcess(
        { ...fresh, PORT: '1' },
        { via: 'cli', args: ['--port', String(port), '--host', '127.0.0.1'], url: `http://127.0.0.1:${port}` },
      )
      try {
        // The token is made once listening, after /healthz first answers: under coverage that took over 2 s.
        for (let i = 0; i < 500 && !/ll_/.test(server.stderr()); i++) await sleep(20)
        assert.match(server.stderr(), /ll_[\w-]{43}/, 'the first token is still to be shown')
      } finally {
        server.child.kill('SIGTERM')
        assert.equal(await server.exited, 0, server.output())
      }
      assert.match((await cli(['serve', '--port', 'eighty'], fresh)).stderr, /PORT must be an integer/)
    })

    test('a database that cannot be opened or reached is named by its setting, without its password', async () => {
      const sqlite = await cli(['migrate'], { ...env, DATABASE_URL: 'sqlite:/etc/passwd/linkline.db' })
      assert.equal(sqlite.status, 1)
      assert.match(sqlite.stderr, /^linkline: DATABASE_URL=sqlite:\/etc\/passwd\/linkline\.db: /)
      // SQLite gives one message whatever the reason: the start says which reason it is.
      const folder = mkdtempSync(join(tmpdir(), 'linkline-folder-'))
      const directory = await cli(['migrate'], { ...env, DATABASE_URL: `sqlite:${folder}` })
      rmSync(folder, { recursive: true })
      assert.equal(directory.status, 1)
      assert.equal(directory.stderr, `linkline: DATABASE_URL=sqlite:${folder}: unable to open database file: ${folder} is a directory, not a database file\n`)
      const postgres = await cli(['tokens', 'list'], { ...env, DATABASE_URL: 'postgres://linkline:secret@127.0.0.1:1/linkline' })
      assert.equal(postgres.status, 1)
      assert.match(postgres.stderr, /^linkline: DATABASE_URL=postgres:\/\/linkline:\*\*\*@127\.0\.0\.1:1\/linkline: .*ECONNREFUSED/)
      assert.doesNotMatch(postgres.stderr, /secret/)
    })

    test('a bad configuration stops the start with a clear message', async () => {
      const r = await cli(['serve'], { ...env, PORT: 'eighty', LOG_LEVEL: 'loud', LINKLINE_CLICK_WRITER_NICE: '20', LINKLINE_DOMAINS: 'https://short.example' })
      assert.equal(r.status, 2)
      assert.match(r.stderr, /PORT must be an integer/)
      assert.match(r.stderr, /LOG_LEVEL must be one of/)
      assert.match(r.stderr, /LINKLINE_CLICK_WRITER_NICE must be an integer from 0 to 19/)
      assert.match(r.stderr, /LINKLINE_DOMAINS entries must be host or host:port .*got "https:\/\/short.example"/)
      // The click writer thread opens the database again: an in-memory one would be a different, empty database.
      assert.match((await cli(['serve'], { ...env, DATABASE_URL: 'sqlite::memory:' })).stderr, /DATABASE_URL must name a database file/)
    })
  })
