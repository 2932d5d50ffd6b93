import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Env } from '../config.js'
import { backends } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send } from '../../test/http-client.js'
import { PASSWORD, signInHeaders as signIn } from '../../test/people.js'
import { cli, cliFailure, cliJson, startServerProcess } from '../../test/process.js'

const SETUP_LINE = /\n {4}(http:\/\/127\.0\.0\.1:\d+\/app\/setup\?code=([A-Za-z0-9_-]{43}))\n/
const RESET_LINK = /^http:\/\/127\.0\.0\.1:(\d+)\/app\/reset\/([A-Za-z0-9_-]{43})\n$/

for (const backend of backends) {
  describe(`the first start's setup link (${backend})`, () => {
    let database: TestDatabase
    before(async () => {
      database = await createTestDatabase(backend)
    })
    after(() => database.drop())

    /** Starts the real server process, waits for its notice on stderr, and stops it. */
    const startAndStop = async (env: Env & { PORT: string }) => {
      const server = await startServerProcess(env)
      for (let i = 0; i < 100 && !server.stdout().includes('"version"'); i++) await sleep(20)
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)
      return server.stderr()
    }

    test('while the bootstrap workspace has no member each start prints a link that makes its first owner; the first used spends the others', async () => {
      const env = { ...database.env, PORT: String(await freePort()), LOG_LEVEL: 'info' }
      const first = await startAndStop(env)
      // Beside the first token, in the same frame.
      assert.match(first, /Linkline created your first API token/)
      assert.match(first, /Workspace "default" has no owner yet\. Open this link to create its first owner\n.*it works once, for 24 hours:\n/)
      const [, url1, code1] = SETUP_LINE.exec(first) ?? []
      assert.ok(url1, first)
      assert.ok(url1.startsWith(`http://127.0.0.1:${env.PORT}/app/setup?code=`), 'the listen address, without a public URL')

      const second = await startAndStop(env)
      assert.doesNotMatch(second, /first API token/, 'the token is shown once')
      const code2 = SETUP_LINE.exec(second)?.[2]
      assert.ok(code2 && code2 !== code1, 'a new link on the next start, while nobody used one')

      const server = await startServerProcess(env)
      try {
        // The page the link opens: its request is logged, without the code.
        await send(server.url, 'GET', `/app/setup?code=${code2}`, { headers: { host: `localhost:${env.PORT}` } })
        for (let i = 0; i < 250 && !server.stdout().includes('/app/setup?code='); i++) await sleep(20)
        assert.match(server.stdout(), /"url":"\/app\/setup\?code=…"/)
        assert.ok(!server.output().includes(code2), 'no log line holds the code')
        const body = { email: 'founder@example.com', name: 'Founder', password: PASSWORD }
        const created = await send(server.url, 'POST', '/v1/setup', { json: { ...body, code: code2 } })
        assert.equal(created.status, 201, created.text)
        assert.deepEqual([created.body.data.ownerId, created.body.data.via], ['default', 'session'])
        assert.equal((await send(server.url, 'POST', '/v1/setup', { json: { ...body, code: code2 } })).status, 410, 'once')
        const older = await send(server.url, 'POST', '/v1/setup', { json: { ...body, email: 'other@example.com', code: code1 } })
        assert.deepEqual([older.status, older.body.error.code], [410, 'gone'])
        const session = await send(server.url, 'POST', '/v1/sessions', { json: { email: body.email, password: body.password } })
        assert.equal(session.status, 201)
      } finally {
        server.child.kill('SIGTERM')
        assert.equal(await server.exited, 0)
      }
      assert.doesNotMatch(await startAndStop(env), /setup\?code=/, 'no link once the workspace has its owner')
    })
  })

  describe(`linkline users (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())
    const linkline = (...args: string[]) => cli(args, s.env)
    const secretOf = (stdout: string) => {
      const match = RESET_LINK.exec(stdout)
      assert.ok(match, `a link alone on stdout: ${stdout}`)
      assert.equal(match[1], s.env.PORT)
      return match[2]!
    }
    const setPassword = async (secret: string, password: string) => {
      const res = await s.request('POST', '/v1/password-reset', { token: null, json: { secret, password } })
      assert.equal(res.status, 200, res.text)
    }

    test('usage errors exit 2 with the usage; refusals exit 1', async () => {
      for (const args of [
        ['users'],
        ['users', 'frobnicate'],
        ['users', 'create', '--workspace', 'w', '--role', 'member'],
        ['users', 'create', '--email', 'not-an-email', '--workspace', 'w', '--role', 'member'],
        ['users', 'create', '--email', 'x@example.com', '--role', 'member'],
        ['users', 'create', '--email', 'x@example.com', '--workspace', 'w', '--role', 'emperor'],
        ['users', 'remove'],
        ['users', 'list', '--bogus'],
      ]) {
        const r = await linkline(...args)
        assert.equal(r.status, 2, `${args.join(' ')}: ${cliFailure(r)}`)
        assert.match(r.stderr, /^linkline: /)
      }
      assert.match((await linkline('users', '--help')).stdout, /linkline users create --email <email> --workspace <id> --role <role>/)
      const unknown = await linkline('users', 'remove', '--email', 'nobody@example.com')
      assert.deepEqual([unknown.status, unknown.stderr], [1, 'linkline: no person has the email nobody@example.com\n'])
      assert.equal((await linkline('users', 'reset-password', '--email', 'nobody@example.com')).status, 1)
    })

    test('create prints a one-time link that sets the password; list shows people; reset-password prints a 1-hour link', async () => {
      const made = await linkline('users', 'create', '--email', 'Cleo@example.com', '--workspace', 'acme', '--role', 'admin', '--name', 'Cleo')
      assert.equal(made.status, 0, cliFailure(made))
      assert.match(made.stderr, /^created Cleo@example\.com \(usr_\w+\), admin of acme; this link sets their password, once, until \d{4}-/)
      assert.match(made.stderr, /set LINKLINE_PUBLIC_URL/, 'says where the address comes from')
      const secret = secretOf(made.stdout)
      assert.equal((await linkline('users', 'create', '--email', 'cleo@EXAMPLE.com', '--workspace', 'acme', '--role', 'member')).status, 1, 'email taken')

      assert.equal((await s.request('POST', '/v1/sessions', { token: null, json: { email: 'cleo@example.com', password: PASSWORD } })).status, 401)
      await setPassword(secret, PASSWORD)
      const headers = await signIn(s, 'cleo@example.com')
      const me = await s.request('GET', '/v1/me', { token: null, headers })
      assert.deepEqual([me.body.data.principal.workspaceId, me.body.data.principal.role, me.body.data.user.name], ['acme', 'admin', 'Cleo'])

      const listed = await cliJson<{ email: string; name: string; lastSignInAt: string | null; memberships: { workspaceId: string; role: string }[] }[]>(
        ['users', 'list', '--json'],
        s.env,
      )
      const cleo = listed.find((u) => u.email === 'Cleo@example.com')
      assert.deepEqual(cleo?.memberships, [{ workspaceId: 'acme', role: 'admin' }])
      assert.ok(cleo?.lastSignInAt)
      const table = (await linkline('users', 'list')).stdout
      assert.match(table, /^EMAIL\s+NAME\s+WORKSPACES\s+LAST SIGN-IN\n/)
      assert.match(table, /\nCleo@example\.com\s+Cleo\s+acme:admin\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC\n/)

      const reset = await linkline('users', 'reset-password', '--email', 'cleo@example.com')
      assert.equal(reset.status, 0, cliFailure(reset))
      assert.match(reset.stderr, /this link sets a new password for Cleo@example\.com, once, until/)
      const expiresAt = Date.parse(/until (\S+);/.exec(reset.stderr)![1]!)
      assert.ok(Math.abs(expiresAt - Date.now() - 3_600_000) < 60_000, 'valid one hour')
      await setPassword(secretOf(reset.stdout), 'a brand new password')
      assert.equal((await s.request('GET', '/v1/me', { token: null, headers })).status, 401, 'the reset ended their sessions')
      await signIn(s, 'cleo@example.com', 'a brand new password')
    })

    test('remove deletes the person: sessions end, memberships go, the tokens they made are revoked', async () => {
      const made = await linkline('users', 'create', '--email', 'gone@example.com', '--workspace', 'acme', '--role', 'admin')
      await setPassword(secretOf(made.stdout), PASSWORD)
      const headers = await signIn(s, 'gone@example.com')
      const token = await s.request('POST', '/v1/tokens', { token: null, headers, json: { name: 'theirs' } })
      assert.equal(token.status, 201, token.text)
      assert.equal((await s.request('GET', '/v1/links', { token: token.body.data.token })).status, 200)

      const removed = await linkline('users', 'remove', '--email', 'GONE@example.com')
      assert.equal(removed.status, 0, cliFailure(removed))
      assert.match(removed.stdout, /^removed gone@example\.com \(usr_\w+\): 1 membership\(s\) ended, 1 token\(s\) revoked\n$/)
      assert.equal((await s.request('GET', '/v1/me', { token: null, headers })).status, 401)
      assert.equal((await s.request('GET', '/v1/links', { token: token.body.data.token })).status, 401)
      const listed = await cliJson<{ email: string }[]>(['users', 'list', '--json'], s.env)
      assert.ok(!listed.some((u) => u.email === 'gone@example.com'))
      assert.equal((await s.request('POST', '/v1/sessions', { token: null, json: { email: 'gone@example.com', password: PASSWORD } })).status, 401)
    })
  })
}
