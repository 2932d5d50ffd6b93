import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { DAY_MS } from '../shared/time.js'
import { auditDeclarationsOf } from './audit.recording.js'
import { AUDIT_RETENTION_DAYS } from './audit.service.js'
import { movableClock } from '../../test/movable-clock.js'

interface Entry {
  id: string
  at: string
  actor: { type: string; id: string; label: string }
  action: string
  resourceType: string
  resourceId: string | null
  workspaceId: string
}

const PASSWORD = 'correct horse battery staple'
const SAFE = new Set(['get', 'head', 'options'])

for (const backend of backends) {
  describe(`audit log (${backend})`, () => {
    let s: TestServer
    const clock = movableClock()
    /** A token of workspace `acme` with every scope, named: the actor of most entries below. */
    let ci: { id: string; token: string }
    before(async () => {
      s = await startTestServer({
        backend,
        container: { clock },
        env: { LINKLINE_DOMAIN_VERIFICATION: 'off', LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true' },
      })
      ci = await s.container.tokens.create({ ownerId: 'acme', name: 'ci deploy' })
    })
    after(() => s.close())

    const log = async (token: string, query = '') => {
      const res = await s.request('GET', `/v1/audit-log${query}`, { token })
      assert.equal(res.status, 200, res.text)
      return res.body as { data: Entry[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } }
    }
    /** The entries written since `since` (an entry id, or none), oldest first: the order things were done in. */
    const since = async (token: string, sinceId?: string) =>
      (await log(token, '?limit=100')).data.filter((e) => sinceId === undefined || e.id > sinceId).reverse()
    const newest = async (token: string) => (await log(token, '?limit=1')).data[0]?.id
    const brief = (entries: Entry[]) => entries.map((e) => [e.action, e.resourceType, e.resourceId])
    const ok = async (method: string, path: string, json?: unknown, token = ci.token) => {
      const res = await s.request(method, path, { token, json })
      assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`)
      return res.body
    }

    test('every state-changing /v1 route says what it records, or why it records nothing', async () => {
      const doc = (await s.request('GET', '/v1/openapi.json', { token: null })).body as { paths: Record<string, Record<string, unknown>> }
      const declared = auditDeclarationsOf(s.app)
      const walked: string[] = []
      for (const [path, operations] of Object.entries(doc.paths)) {
        if (!path.startsWith('/v1/')) continue
        for (const method of Object.keys(operations).filter((m) => !SAFE.has(m))) {
          const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`
          walked.push(key)
          const audit = declared.get(key)
          assert.ok(audit, `${key} changes state but has no config.audit (a declaration, or { skip: reason })`)
          if ('skip' in audit) assert.ok(audit.skip.length >= 20, `${key}: say why nothing is recorded`)
          else if ('writtenWith' in audit) assert.ok(audit.writtenWith.length >= 20, `${key}: say where its entries are written`)
          else assert.match(audit.resource, /^[a-z_]+$/, key)
        }
      }
      for (const key of ['POST /v1/links', 'DELETE /v1/tokens/:id', 'PATCH /v1/members/:userId', 'POST /v1/sessions', 'POST /v1/webhooks/:id/test']) {
        assert.ok(walked.includes(key), `${key} was walked`)
      }
    })

    test('links, domains, webhooks and tokens: each change is recorded with the token that made it', async () => {
      const start = await newest(ci.token)
      const link = (await ok('POST', '/v1/links', { destination: 'https://example.com/a' })).data
      await ok('PATCH', `/v1/links/${link.id}`, { title: 'Renamed' })
      await ok('PUT', `/v1/links/${link.id}`, { title: 'Renamed again' })
      await ok('DELETE', `/v1/links/${link.id}`)
      const domain = (await ok('POST', '/v1/domains', { name: 'Go.Acme.example' })).data
      await ok('POST', `/v1/domains/${domain.name}/verify`)
      await ok('DELETE', `/v1/domains/${domain.name}`)
      const hook = (await ok('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['link.created'] })).data
      await ok('PATCH', `/v1/webhooks/${hook.id}`, { description: 'deploys' })
      const delivery = (await ok('POST', `/v1/webhooks/${hook.id}/test`, {})).data
      await ok('DELETE', `/v1/webhooks/${hook.id}`)
      const token = (await ok('POST', '/v1/tokens', { name: 'reporting', scopes: ['links:read'] })).data
      await ok('DELETE', `/v1/tokens/${token.id}`)

      const entries = await since(ci.token, start)
      assert.deepEqual(brief(entries), [
        ['link.created', 'link', link.id],
        ['link.updated', 'link', link.id],
        ['link.updated', 'link', link.id],
        ['link.deleted', 'link', link.id],
        ['domain.created', 'domain', 'go.acme.example'],
        ['domain.verification_checked', 'domain', 'go.acme.example'],
        ['domain.deleted', 'domain', 'go.acme.example'],
        ['webhook.created', 'webhook', hook.id],
        ['webhook.updated', 'webhook', hook.id],
        ['webhook.tested', 'webhook', hook.id],
        ['webhook.deleted', 'webhook', hook.id],
        ['token.created', 'token', token.id],
        ['token.revoked', 'token', token.id],
      ])
      assert.notEqual(delivery.id, hook.id, 'the test names the webhook, not the delivery it queued')
      for (const e of entries) {
        assert.deepEqual(e.actor, { type: 'token', id: ci.id, label: 'ci deploy' })
        assert.equal(e.workspaceId, 'acme')
        assert.match(e.id, /^aud_[0-9A-Z]{26}$/)
        assert.ok(Math.abs(Date.parse(e.at) - clock.now()) < 60_000, e.at)
      }
      assert.deepEqual(Object.keys(entries[0] as Entry).sort(), ['action', 'actor', 'at', 'id', 'resourceId', 'resourceType', 'workspaceId'])
    })

    test('bulk routes record one entry per item done; failures, reads and replays record nothing', async () => {
      const start = await newest(ci.token)
      const bulk = (
        await ok('POST', '/v1/links/bulk', {
          links: [{ destination: 'https://example.com/1' }, { destination: 'nope' }, { destination: 'https://example.com/2' }],
        })
      ).data as { ok: boolean; link?: { id: string } }[]
      const [first, second] = bulk.filter((r) => r.ok).map((r) => r.link?.id as string)
      await ok('POST', '/v1/links/bulk-delete', { ids: [first, 'lnk_01JD0000000000000000000000'] })
      assert.equal((await s.request('PATCH', '/v1/links/lnk_01JD0000000000000000000000', { token: ci.token, json: { title: 'x' } })).status, 404)
      assert.equal((await s.request('POST', '/v1/links', { token: ci.token, json: { destination: 'not a url' } })).status, 400)
      await ok('GET', `/v1/links/${second}`)
      const headers = { 'idempotency-key': 'audit-once' }
      const once = await s.request('POST', '/v1/links', { token: ci.token, json: { destination: 'https://example.com/once' }, headers })
      const again = await s.request('POST', '/v1/links', { token: ci.token, json: { destination: 'https://example.com/once' }, headers })
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.deepEqual(brief(await since(ci.token, start)), [
        ['link.created', 'link', first],
        ['link.created', 'link', second],
        ['link.deleted', 'link', first],
        ['link.created', 'link', once.body.data.id],
      ])
    })

    test('a workspace sees only its own entries, and the filters narrow them', async () => {
      await ok('POST', '/v1/links', { destination: 'https://example.com/alice' }, s.token)
      const alices = (await log(s.token, '?limit=100')).data
      const acmes = (await log(ci.token, '?limit=100')).data
      assert.ok(alices.length > 0 && acmes.length > 0)
      assert.ok(alices.every((e) => e.workspaceId === 'alice'))
      assert.ok(acmes.every((e) => e.workspaceId === 'acme'))
      assert.deepEqual((await log(s.token, `?actorId=${ci.id}`)).data, [], "another workspace's actor finds nothing")

      const deleted = (await log(ci.token, '?action=link.deleted&limit=100')).data
      assert.ok(deleted.length >= 2 && deleted.every((e) => e.action === 'link.deleted'))
      const tokens = (await log(ci.token, '?resourceType=token&limit=100')).data
      assert.deepEqual(
        tokens.map((e) => e.action),
        ['token.revoked', 'token.created'],
      )
      assert.equal((await log(ci.token, `?actorId=${ci.id}&limit=100`)).data.length, acmes.length)
    })

    test('pages walk the log newest first, without duplicates or gaps among entries of one millisecond', async () => {
      const reader = await s.container.tokens.create({ ownerId: 'paging', scopes: ['audit:read'] })
      const actor = { type: 'token' as const, id: reader.id, label: 'writer' }
      const entry = (i: number) => ({ workspaceId: 'paging', actor, action: 'link.created', resourceType: 'link', resourceId: `lnk_${i}` })
      await s.container.audit.record(Array.from({ length: 25 }, (_, i) => entry(i)))
      const all = (await log(reader.token, '?limit=100')).data
      assert.equal(all.length, 25)
      assert.equal(new Set(all.map((e) => e.at)).size, 1, 'written in the same millisecond')
      assert.deepEqual(
        all.map((e) => e.resourceId),
        Array.from({ length: 25 }, (_, i) => `lnk_${24 - i}`),
        'newest first: the order they were recorded in, reversed',
      )

      const seen: string[] = []
      let page = await log(reader.token, '?limit=7')
      // Entries written while someone pages are newer than the first page: they never show up further on.
      await s.container.audit.record([entry(100), entry(101)])
      for (;;) {
        assert.equal(page.pagination.limit, 7)
        seen.push(...page.data.map((e) => e.id))
        if (!page.pagination.hasMore) break
        assert.equal(page.pagination.nextCursor, page.data.at(-1)?.id)
        page = await log(reader.token, `?limit=7&starting_after=${page.pagination.nextCursor}`)
      }
      assert.equal(page.pagination.nextCursor, null)
      assert.deepEqual(
        seen,
        all.map((e) => e.id),
      )
      assert.equal((await log(reader.token)).pagination.limit, 50, 'the default page')
      assert.equal((await s.request('GET', '/v1/audit-log?limit=101', { token: reader.token })).status, 400)
      assert.equal((await s.request('GET', '/v1/audit-log?cursor=x', { token: reader.token })).status, 400)
    })

    test('reading the log needs audit:read', async () => {
      const writer = await s.createToken('acme', ['links:read', 'links:write', 'members:read'])
      const refused = await s.request('GET', '/v1/audit-log', { token: writer })
      assert.equal(refused.status, 403)
      assert.equal(refused.body.error.code, 'forbidden')
      assert.equal((await s.request('GET', '/v1/audit-log', { token: null })).status, 401)
    })

    test('sign-ins are recorded: a wrong password in each of the person’s workspaces, a success where the session opened', async () => {
      const carol = await s.container.accounts.createUser({ email: 'Carol@Example.com', name: 'Carol', password: PASSWORD })
      await s.container.accounts.join(carol.id, 'acme', 'admin')
      await s.container.accounts.join(carol.id, 'beta', 'viewer')
      const beta = await s.createToken('beta', ['audit:read'])
      const start = { acme: await newest(ci.token), beta: await newest(beta) }
      const signIn = (email: string, password: string) => s.request('POST', '/v1/sessions', { token: null, json: { email, password } })

      assert.equal((await signIn('carol@example.com', 'wrong password!')).status, 401)
      assert.equal((await signIn('nobody@example.com', PASSWORD)).status, 401)
      // A failure is written just after its answer (which takes as long for an unknown email).
      const failedIn = async (token: string, from: string | undefined) => (await since(token, from)).filter((e) => e.action === 'session.failed')
      for (let i = 0; i < 50 && ((await failedIn(ci.token, start.acme)).length === 0 || (await failedIn(beta, start.beta)).length === 0); i++) await sleep(20)
      const user = { type: 'user', id: carol.id, label: 'Carol@Example.com' }
      for (const [token, from, workspaceId] of [
        [ci.token, start.acme, 'acme'],
        [beta, start.beta, 'beta'],
      ] as const) {
        const failed = await failedIn(token, from)
        assert.deepEqual(
          failed.map((e) => [e.actor, e.resourceType, e.resourceId, e.workspaceId]),
          [[user, 'session', null, workspaceId]],
          'one failure, the unknown email left out',
        )
      }

      const signedIn = await signIn('CAROL@example.com', PASSWORD)
      assert.equal(signedIn.status, 201, signedIn.text)
      const created = (await since(ci.token, start.acme)).filter((e) => e.action === 'session.created')
      assert.equal(created.length, 1)
      assert.deepEqual(created[0]?.actor, user)
      assert.match(created[0]?.resourceId ?? '', /^ses_/)
      assert.deepEqual(
        (await since(beta, start.beta)).map((e) => e.action),
        ['session.failed'],
        'the session opened in acme, not beta',
      )

      // What she does through her session is hers.
      const cookie = `linkline_session=${/linkline_session=([^;]*)/.exec(String(signedIn.headers['set-cookie']))?.[1]}`
      const before = await newest(ci.token)
      const made = await s.request('POST', '/v1/links', {
        token: null,
        json: { destination: 'https://example.com/carol' },
        headers: { cookie, origin: `http://${s.host}` },
      })
      assert.equal(made.status, 201, made.text)
      assert.deepEqual(brief(await since(ci.token, before)), [['link.created', 'link', made.body.data.id]])
      assert.deepEqual((await since(ci.token, before))[0]?.actor, user)
      assert.doesNotMatch(JSON.stringify(await log(ci.token, '?limit=100')), new RegExp(PASSWORD), 'no password is ever written')
    })

    test('role changes and removals of members are recorded', async () => {
      const dave = await s.container.accounts.createUser({ email: 'dave@example.com', name: 'Dave' })
      await s.container.accounts.join(dave.id, 'acme', 'member')
      const start = await newest(ci.token)
      await ok('PATCH', `/v1/members/${dave.id}`, { role: 'viewer' })
      await ok('DELETE', `/v1/members/${dave.id}`)
      assert.equal((await s.request('DELETE', `/v1/members/${dave.id}`, { token: ci.token })).status, 404)
      assert.deepEqual(brief(await since(ci.token, start)), [
        ['member.role_changed', 'member', dave.id],
        ['member.removed', 'member', dave.id],
      ])
    })

    test('invitations are recorded: made, revoked, and the person who joined through one', async () => {
      const start = await newest(ci.token)
      const revoked = await ok('POST', '/v1/invitations', { email: 'gone@example.com', role: 'viewer' })
      await ok('DELETE', `/v1/invitations/${revoked.data.id}`)
      const invited = await ok('POST', '/v1/invitations', { email: 'erin@example.com', role: 'member' })
      const secret = String(invited.data.url).split('/').pop()
      const accepted = await s.request('POST', '/v1/invitations/accept', { token: null, json: { secret, name: 'Erin', password: PASSWORD } })
      assert.equal(accepted.status, 201, accepted.text)
      const erin = accepted.body.data.userId as string
      await ok('POST', `/v1/members/${erin}/password-reset`)
      const entries = await since(ci.token, start)
      assert.deepEqual(brief(entries), [
        ['invitation.created', 'invitation', revoked.data.id],
        ['invitation.revoked', 'invitation', revoked.data.id],
        ['invitation.created', 'invitation', invited.data.id],
        ['member.joined', 'member', erin],
        ['member.password_reset_issued', 'member', erin],
      ])
      assert.deepEqual(entries[3]?.actor, { type: 'user', id: erin, label: 'erin@example.com' }, 'the person who joined is the actor')
    })

    test(`entries older than ${AUDIT_RETENTION_DAYS} days are pruned`, async () => {
      const reader = await s.container.tokens.create({ ownerId: 'pruning', scopes: ['audit:read'] })
      const entry = (resourceId: string) => ({
        workspaceId: 'pruning',
        actor: { type: 'token' as const, id: reader.id, label: 'r' },
        action: 'link.created',
        resourceType: 'link',
        resourceId,
      })
      await s.container.audit.record(entry('old'))
      clock.advance(AUDIT_RETENTION_DAYS * DAY_MS - 60_000)
      await s.container.audit.record(entry('recent'))
      await s.container.audit.prune()
      assert.deepEqual(
        (await log(reader.token)).data.map((e) => e.resourceId),
        ['recent', 'old'],
        'not yet 90 days old',
      )
      clock.advance(120_000)
      assert.ok((await s.container.audit.prune()) >= 1)
      assert.deepEqual(
        (await log(reader.token)).data.map((e) => e.resourceId),
        ['recent'],
      )
    })

    test('a change recorded after it succeeds when its entry cannot be written (counted); a create, written with its entry, fails whole', async () => {
      const link = (await ok('POST', '/v1/links', { destination: 'https://example.com/recorded' })).data
      await sql`drop table audit_log`.execute(s.container.storage.db)
      const res = await s.request('PATCH', `/v1/links/${link.id}`, { token: ci.token, json: { title: 'Unrecorded' } })
      assert.equal(res.status, 200, res.text)
      assert.equal((await ok('GET', `/v1/links/${link.id}`)).data.title, 'Unrecorded')
      const metrics = (await s.request('GET', '/metrics', { token: null })).text
      assert.match(metrics, /^linkline_audit_write_failures_total 1$/m)

      const created = await s.request('POST', '/v1/links', { token: ci.token, json: { destination: 'https://example.com/unrecorded' } })
      assert.equal(created.status, 500, created.text)
      assert.equal(created.body.error.code, 'internal_error')
      const found = await ok('GET', `/v1/links?query[destination]=${encodeURIComponent('https://example.com/unrecorded')}`)
      assert.deepEqual(found.data, [], 'the link was rolled back with its entry')
    })
  })
}
