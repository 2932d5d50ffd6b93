import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CompiledQuery } from 'kysely'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import type { RequestOptions } from '../../test/http-client.js'
import { createConversationsRepository } from './conversations.repository.js'
import { createConversationsService } from './conversations.service.js'
import { AppError } from '../shared/errors.js'
import { noEvents } from '../webhooks/events.js'
import { sqliteAdapter } from '../storage/dialect.js'

type Fields = Record<string, string | number | boolean | null>
type Encoding = 'json' | 'form'
const encodings: Encoding[] = ['json', 'form']

/** The same fields as a JSON body or as form fields (where null is the empty string). */
const encode = (encoding: Encoding, fields: Fields): RequestOptions =>
  encoding === 'json' ? { json: fields } : { form: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === null ? '' : v])) }

const CONVERSATION_KEYS = [
  'archived_at',
  'contact_id',
  'created_at',
  'group_id',
  'id',
  'is_muted',
  'is_pinned',
  'last_active_at',
  'last_opened_at',
  'link_id',
  'pinned_message_id',
]

interface Conversation {
  id: string
  last_active_at: number | null
  created_at: number
}
const ids = (items: { id: string }[]) => items.map((item) => item.id)
const nowSeconds = () => Math.floor(Date.now() / 1000)

for (const backend of backends) {
  describe(`conversations (${backend})`, () => {
    let s: TestServer
    let bob: string
    before(async () => {
      s = await startTestServer({ backend })
      bob = await s.createToken('bob')
    })
    after(() => s.close())

    const db = () => s.container.storage.db
    const create = (fields: Fields, options: { encoding?: Encoding; token?: string } = {}) =>
      s.request('POST', '/v1/conversations', { ...encode(options.encoding ?? 'json', fields), token: options.token ?? s.token })
    const createId = async (fields: Fields, token = s.token): Promise<string> => {
      const r = await create(fields, { token })
      assert.ok(r.status === 201 || r.status === 200, r.text)
      return r.body.id
    }
    const update = (id: string, fields: Fields, encoding: Encoding = 'json', method = 'PUT') =>
      s.request(method, `/v1/conversations/${id}`, encode(encoding, fields))
    const postMessage = (id: string, fields: Fields, encoding: Encoding = 'json', token = s.token) =>
      s.request('POST', `/v1/conversations/${id}/messages`, { ...encode(encoding, fields), token })
    const createLink = async (token = s.token): Promise<string> =>
      (await s.request('POST', '/v1/links', { json: { destination: 'https://poster.example/' }, token })).body.data.id
    const expect400 = (r: { status: number; body: { error: { code: string; param?: string } } }, param: string, label: string) => {
      assert.equal(r.status, 400, label)
      assert.equal(r.body.error.code, 'validation_error', label)
      assert.equal(r.body.error.param, param, label)
    }
    /** Messages without a conversation, and conversations naming a link that is gone. */
    const orphans = async () => {
      const messages = await db()
        .selectFrom('messages')
        .leftJoin('conversations', 'conversations.id', 'messages.conversation_id')
        .where('conversations.id', 'is', null)
        .select('messages.id')
        .execute()
      const conversations = await db()
        .selectFrom('conversations')
        .leftJoin('links', 'links.id', 'conversations.link_id')
        .where('conversations.link_id', 'is not', null)
        .where('links.id', 'is', null)
        .select('conversations.id')
        .execute()
      return messages.length + conversations.length
    }
    const countConversations = async (column: 'id' | 'contact_id' | 'link_id', value: string) =>
      (await db().selectFrom('conversations').select('id').where(column, '=', value).execute()).length
    const countMessages = async (column: 'id' | 'conversation_id', value: string) =>
      (await db().selectFrom('messages').select('id').where(column, '=', value).execute()).length

    describe('create: one conversation per contact or group', () => {
      for (const encoding of encodings) {
        test(`a new contact is 201 with the object, the same contact again is 200 (${encoding})`, async () => {
          const before = nowSeconds()
          const first = await create({ contact_id: `c_${encoding}` }, { encoding })
          assert.equal(first.status, 201)
          assert.deepEqual(Object.keys(first.body).sort(), CONVERSATION_KEYS)
          assert.match(first.body.id, /^conv_[0-9A-Z]{26}$/)
          assert.deepEqual(
            { ...first.body, id: undefined, created_at: undefined },
            {
              id: undefined,
              contact_id: `c_${encoding}`,
              group_id: null,
              link_id: null,
              pinned_message_id: null,
              is_pinned: false,
              is_muted: false,
              last_active_at: null,
              last_opened_at: null,
              created_at: undefined,
              archived_at: null,
            },
          )
          assert.ok(Number.isInteger(first.body.created_at) && first.body.created_at >= before && first.body.created_at <= nowSeconds())
          const again = await create({ contact_id: `c_${encoding}` }, { encoding })
          assert.equal(again.status, 200)
          assert.deepEqual(again.body, first.body)
          assert.equal(await countConversations('contact_id', `c_${encoding}`), 1)
        })

        test(`a group is its own key, distinct from a contact of the same id (${encoding})`, async () => {
          const group = await create({ group_id: `shared_${encoding}` }, { encoding })
          assert.equal(group.status, 201)
          assert.equal(group.body.group_id, `shared_${encoding}`)
          assert.equal(group.body.contact_id, null)
          assert.equal((await create({ group_id: `shared_${encoding}` }, { encoding })).body.id, group.body.id)
          const contact = await create({ contact_id: `shared_${encoding}` }, { encoding })
          assert.equal(contact.status, 201)
          assert.notEqual(contact.body.id, group.body.id)
        })

        test(`attached to one of the caller's links; another owner's or an unknown link is 404 link_id (${encoding})`, async () => {
          const link = await createLink()
          const r = await create({ contact_id: `poster_${encoding}`, link_id: link }, { encoding })
          assert.equal(r.status, 201)
          assert.equal(r.body.link_id, link)
          for (const linkId of [await createLink(bob), 'lnk_01ZZZZZZZZZZZZZZZZZZZZZZZZ']) {
            const refused = await create({ contact_id: `refused_${encoding}`, link_id: linkId }, { encoding })
            assert.equal(refused.status, 404)
            assert.equal(refused.body.error.code, 'not_found')
            assert.equal(refused.body.error.param, 'link_id')
          }
          assert.equal(await countConversations('contact_id', `refused_${encoding}`), 0)
        })
      }

      test('a link gone between its check and the insert is 404 link_id as well', async () => {
        // The check passes (as it did for a link deleted and purged right after it); the foreign key refuses the row.
        const racing = createConversationsService({
          repo: createConversationsRepository(db(), s.container.storage.adapter),
          links: { ...s.container.links, assertOwned: async () => {} },
          clock: s.container.clock,
          events: noEvents,
        })
        const principal = { tokenId: 'tok_race', ownerId: 'default', scopes: new Set<string>(), role: 'owner' as const }
        await assert.rejects(racing.create(principal, { contact_id: 'raced', link_id: 'lnk_01ZZZZZZZZZZZZZZZZZZZZZZZZ' }), (error: unknown) => {
          assert.ok(error instanceof AppError)
          assert.deepEqual([error.statusCode, error.code, error.param], [404, 'not_found', 'link_id'])
          return true
        })
        assert.equal(await countConversations('contact_id', 'raced'), 0)
      })

      test('link_id null (or empty in a form) means no link', async () => {
        assert.equal((await create({ contact_id: 'nolink_json', link_id: null })).body.link_id, null)
        assert.equal((await create({ contact_id: 'nolink_form', link_id: null }, { encoding: 'form' })).body.link_id, null)
      })

      test('an existing conversation is returned unchanged when another link_id is sent', async () => {
        const first = await create({ contact_id: 'relinked', link_id: await createLink() })
        const again = await create({ contact_id: 'relinked', link_id: await createLink() })
        assert.equal(again.status, 200)
        assert.deepEqual(again.body, first.body)
        const foreign = await create({ contact_id: 'relinked', link_id: await createLink(bob) })
        assert.deepEqual([foreign.status, foreign.body.error.param], [404, 'link_id'], 'the link is checked even when the conversation exists')
      })

      test('validation errors name the parameter, in both encodings', async () => {
        const cases: [Fields, string][] = [
          [{}, 'contact_id'],
          [{ contact_id: 'a', group_id: 'b' }, 'group_id'],
          [{ contact_id: '' }, 'contact_id'],
          [{ group_id: '' }, 'group_id'],
          [{ contact_id: 'x'.repeat(129) }, 'contact_id'],
          [{ group_id: 'x'.repeat(129) }, 'group_id'],
          [{ contact_id: 'a', link_id: 'x'.repeat(65) }, 'link_id'],
          [{ contact_id: 'a', colour: 'red' }, 'colour'],
        ]
        for (const encoding of encodings) {
          for (const [fields, param] of cases) expect400(await create(fields, { encoding }), param, `${encoding} ${JSON.stringify(fields)}`)
        }
        for (const [fields, param] of [
          [{ contact_id: 42 }, 'contact_id'],
          [{ group_id: true }, 'group_id'],
          [{ contact_id: 'a', link_id: 7 }, 'link_id'],
        ] as const) {
          expect400(await create(fields), param, JSON.stringify(fields))
        }
        const json = await s.request('POST', '/v1/conversations', { raw: '["c"]', headers: { 'content-type': 'application/json' } })
        assert.equal(json.body.error.code, 'invalid_body')
      })

      test('contact ids of 128 code points are accepted', async () => {
        const r = await create({ contact_id: '😀'.repeat(128) })
        assert.equal(r.status, 201)
        assert.equal(r.body.contact_id, '😀'.repeat(128))
      })

      test('concurrent get-or-create of one contact (and one group) makes exactly one conversation', async () => {
        for (const [column, value] of [
          ['contact_id', 'racer'],
          ['group_id', 'racers'],
        ] as const) {
          const results = await Promise.all(Array.from({ length: 12 }, () => create({ [column]: value })))
          assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
          assert.equal(new Set(results.map((r) => r.body.id)).size, 1)
          const rows = await db().selectFrom('conversations').select('id').where('owner_id', '=', 'alice').where(column, '=', value).execute()
          assert.equal(rows.length, 1)
        }
      })
    })

    describe('retrieve, update, open, delete', () => {
      let id: string
      let messageId: string
      before(async () => {
        id = await createId({ contact_id: 'crud' })
        messageId = (await postMessage(id, { text: 'pin me' })).body.id
      })

      test('GET returns the object and changes nothing', async () => {
        const row = await db().selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
        const r = await s.request('GET', `/v1/conversations/${id}`)
        assert.equal(r.status, 200)
        assert.equal(r.body.id, id)
        assert.equal(r.body.last_opened_at, null)
        assert.deepEqual(await db().selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow(), row)
        assert.equal((await s.request('GET', '/v1/conversations/conv_01ZZZZZZZZZZZZZZZZZZZZZZZZ')).status, 404)
      })

      for (const encoding of encodings) {
        for (const method of ['PUT', 'PATCH']) {
          test(`${method} pins, mutes, archives and restores, only the fields sent (${encoding})`, async () => {
            const pinned = await update(id, { is_pinned: encoding === 'json' ? true : 'true', is_muted: encoding === 'json' ? true : '1' }, encoding, method)
            assert.equal(pinned.status, 200)
            assert.equal(pinned.body.is_pinned, true)
            assert.equal(pinned.body.is_muted, true)
            assert.equal(pinned.body.archived_at, null)

            const archived = await update(id, { archived_at: 1763805600 }, encoding, method)
            assert.equal(archived.body.archived_at, 1763805600)
            assert.equal(archived.body.is_pinned, true, 'untouched')

            const restored = await update(id, { archived_at: null }, encoding, method)
            assert.equal(restored.status, 200)
            assert.equal(restored.body.archived_at, null)

            const unset = await update(id, { is_pinned: encoding === 'json' ? false : 'false', is_muted: encoding === 'json' ? false : '0' }, encoding, method)
            assert.deepEqual([unset.body.is_pinned, unset.body.is_muted], [false, false])
          })

          test(`${method} sets and clears pinned_message_id (${encoding})`, async () => {
            const set = await update(id, { pinned_message_id: messageId }, encoding, method)
            assert.equal(set.status, 200)
            assert.equal(set.body.pinned_message_id, messageId)
            const cleared = await update(id, { pinned_message_id: null }, encoding, method)
            assert.equal(cleared.body.pinned_message_id, null)
          })
        }
      }

      test('an empty update returns the conversation unchanged', async () => {
        const r = await update(id, {})
        assert.equal(r.status, 200)
        assert.deepEqual(r.body, (await s.request('GET', `/v1/conversations/${id}`)).body)
      })

      test('update validation errors name the parameter, and change nothing', async () => {
        const other = await createId({ contact_id: 'crud-other' })
        const foreignMessage = (await postMessage(other, { text: 'elsewhere' })).body.id
        const before = (await s.request('GET', `/v1/conversations/${id}`)).body
        const both: [Fields, string][] = [
          [{ is_pinned: 'yes' }, 'is_pinned'],
          [{ is_muted: 'maybe' }, 'is_muted'],
          [{ is_pinned: '' }, 'is_pinned'],
          [{ archived_at: 'soon' }, 'archived_at'],
          [{ archived_at: '1.5' }, 'archived_at'],
          [{ archived_at: '-1' }, 'archived_at'],
          [{ archived_at: '1763805600000000' }, 'archived_at'],
          [{ pinned_message_id: foreignMessage }, 'pinned_message_id'],
          [{ pinned_message_id: 'msg_01ZZZZZZZZZZZZZZZZZZZZZZZZ' }, 'pinned_message_id'],
          [{ is_muted: true, pinned_message_id: foreignMessage }, 'pinned_message_id'],
          [{ title: 'x' }, 'title'],
          [{ contact_id: 'moved' }, 'contact_id'],
        ]
        const jsonOnly: [Fields, string][] = [
          [{ is_pinned: 1 }, 'is_pinned'],
          [{ archived_at: -1 }, 'archived_at'],
          [{ archived_at: 1.5 }, 'archived_at'],
          [{ archived_at: 253402300800 }, 'archived_at'],
          [{ pinned_message_id: 5 }, 'pinned_message_id'],
        ]
        for (const encoding of encodings) {
          for (const [fields, param] of encoding === 'json' ? [...both, ...jsonOnly] : both) {
            expect400(await update(id, fields, encoding), param, `${encoding} ${JSON.stringify(fields)}`)
          }
        }
        assert.deepEqual((await s.request('GET', `/v1/conversations/${id}`)).body, before, 'a refused update changes nothing')
      })

      test('open sets last_opened_at to now, and only ever forward', async () => {
        const start = nowSeconds()
        const opened = await s.request('POST', `/v1/conversations/${id}/open`)
        assert.equal(opened.status, 200)
        assert.ok(opened.body.last_opened_at >= start && opened.body.last_opened_at <= nowSeconds())
        const future = nowSeconds() + 3600
        await db().updateTable('conversations').set({ last_opened_at: future }).where('id', '=', id).execute()
        for (const encoding of encodings) {
          const again = await s.request('POST', `/v1/conversations/${id}/open`, encode(encoding, {}))
          assert.equal(again.status, 200)
          assert.equal(again.body.last_opened_at, future, encoding)
        }
        expect400(await s.request('POST', `/v1/conversations/${id}/open`, { json: { at: 1 } }), 'at', 'open with a parameter')
        assert.equal((await s.request('POST', '/v1/conversations/conv_01ZZZZZZZZZZZZZZZZZZZZZZZZ/open')).status, 404)
      })

      test('a wrong method on a known path is 405 with Allow', async () => {
        const r = await s.request('POST', `/v1/conversations/${id}`)
        assert.equal(r.status, 405)
        assert.equal(r.headers.allow, 'DELETE, GET, HEAD, PATCH, PUT')
      })

      test('DELETE removes the conversation and all its messages', async () => {
        const doomed = await createId({ contact_id: 'doomed' })
        for (let i = 0; i < 3; i++) await postMessage(doomed, { text: `m${i}` })
        assert.equal(await countMessages('conversation_id', doomed), 3)
        const r = await s.request('DELETE', `/v1/conversations/${doomed}`)
        assert.equal(r.status, 200)
        assert.deepEqual(r.body, { id: doomed, deleted: true })
        assert.equal(await countConversations('id', doomed), 0)
        assert.equal(await countMessages('conversation_id', doomed), 0)
        assert.equal(await orphans(), 0)
        assert.equal((await s.request('GET', `/v1/conversations/${doomed}`)).status, 404)
        assert.equal((await s.request('DELETE', `/v1/conversations/${doomed}`)).status, 404)
        assert.equal((await create({ contact_id: 'doomed' })).status, 201, 'the contact may start a new conversation')
      })
    })

    describe('messages', () => {
      let id: string
      before(async () => {
        id = await createId({ contact_id: 'chatty' })
      })

      for (const encoding of encodings) {
        test(`POST is 201 with the message, outbound by default, and moves last_active_at (${encoding})`, async () => {
          const start = nowSeconds()
          const out = await postMessage(id, { text: `hello ${encoding}` }, encoding)
          assert.equal(out.status, 201)
          assert.match(out.body.id, /^msg_[0-9A-Z]{26}$/)
          assert.deepEqual(
            { ...out.body, id: undefined, created_at: undefined },
            {
              id: undefined,
              conversation_id: id,
              direction: 'outbound',
              text: `hello ${encoding}`,
              created_at: undefined,
            },
          )
          assert.ok(out.body.created_at >= start && out.body.created_at <= nowSeconds())
          const inbound = await postMessage(id, { text: 'hi back', direction: 'inbound' }, encoding)
          assert.equal(inbound.body.direction, 'inbound')
          const conversation = (await s.request('GET', `/v1/conversations/${id}`)).body
          assert.equal(conversation.last_active_at, inbound.body.created_at)
        })
      }

      test('message validation errors name the parameter', async () => {
        const cases: [Fields, string][] = [
          [{}, 'text'],
          [{ text: '' }, 'text'],
          [{ text: 'x'.repeat(4001) }, 'text'],
          [{ text: 'hi', direction: 'sideways' }, 'direction'],
          [{ text: 'hi', direction: '' }, 'direction'],
          [{ text: 'hi', sender: 'me' }, 'sender'],
        ]
        for (const encoding of encodings) {
          for (const [fields, param] of cases) expect400(await postMessage(id, fields, encoding), param, `${encoding} ${JSON.stringify(fields)}`)
        }
        expect400(await postMessage(id, { text: 5 }), 'text', 'a number')
        const long = await postMessage(id, { text: '😀'.repeat(4000) })
        assert.equal(long.status, 201, '4000 code points')
      })

      test('POST to an unknown conversation is 404 and creates nothing', async () => {
        const r = await postMessage('conv_01ZZZZZZZZZZZZZZZZZZZZZZZZ', { text: 'lost' })
        assert.equal(r.status, 404)
        assert.equal(await orphans(), 0)
      })

      test('GET one message; another conversation or an unknown id is 404', async () => {
        const posted = (await postMessage(id, { text: 'findable' })).body
        const r = await s.request('GET', `/v1/conversations/${id}/messages/${posted.id}`)
        assert.equal(r.status, 200)
        assert.deepEqual(r.body, posted)
        const other = await createId({ contact_id: 'chatty-other' })
        assert.equal((await s.request('GET', `/v1/conversations/${other}/messages/${posted.id}`)).status, 404)
        assert.equal((await s.request('GET', `/v1/conversations/${id}/messages/msg_01ZZZZZZZZZZZZZZZZZZZZZZZZ`)).status, 404)
      })

      test('DELETE a message; deleting the pinned one clears pinned_message_id, another leaves it', async () => {
        const pinned = (await postMessage(id, { text: 'pinned' })).body.id
        const plain = (await postMessage(id, { text: 'plain' })).body.id
        assert.equal((await update(id, { pinned_message_id: pinned })).body.pinned_message_id, pinned)

        const r = await s.request('DELETE', `/v1/conversations/${id}/messages/${plain}`)
        assert.deepEqual([r.status, r.body], [200, { id: plain, deleted: true }])
        assert.equal((await s.request('GET', `/v1/conversations/${id}`)).body.pinned_message_id, pinned)

        assert.equal((await s.request('DELETE', `/v1/conversations/${id}/messages/${pinned}`)).status, 200)
        assert.equal((await s.request('GET', `/v1/conversations/${id}`)).body.pinned_message_id, null)
        assert.equal(await countMessages('id', pinned), 0)
        assert.equal((await s.request('DELETE', `/v1/conversations/${id}/messages/${pinned}`)).status, 404)
        expect400(await update(id, { pinned_message_id: pinned }), 'pinned_message_id', 'a deleted message cannot be pinned')
      })

      test('pinning a message while it is deleted never leaves a dangling pin', async () => {
        for (let i = 0; i < 5; i++) {
          const doomed = (await postMessage(id, { text: `race ${i}` })).body.id
          const [pin, del] = await Promise.all([update(id, { pinned_message_id: doomed }), s.request('DELETE', `/v1/conversations/${id}/messages/${doomed}`)])
          assert.equal(del.status, 200)
          assert.ok(pin.status === 200 || pin.status === 400, pin.text)
          assert.equal((await s.request('GET', `/v1/conversations/${id}`)).body.pinned_message_id, null)
        }
      })

      test('deleting a message of another conversation is 404 and keeps it', async () => {
        const other = await createId({ contact_id: 'chatty-keeper' })
        const kept = (await postMessage(other, { text: 'keep' })).body.id
        assert.equal((await s.request('DELETE', `/v1/conversations/${id}/messages/${kept}`)).status, 404)
        assert.equal(await countMessages('id', kept), 1)
      })
    })

    describe('deleting a link deletes its conversations and their messages', () => {
      test('nothing is left orphaned', async () => {
        const link = await createLink()
        const attached = [await createId({ contact_id: 'via-qr-1', link_id: link }), await createId({ group_id: 'via-qr-2', link_id: link })]
        const unattached = await createId({ contact_id: 'not-via-qr' })
        for (const id of [...attached, unattached]) {
          await postMessage(id, { text: 'one' })
          await postMessage(id, { text: 'two' })
        }
        assert.equal(await countConversations('link_id', link), 2)

        assert.equal((await s.request('DELETE', `/v1/links/${link}`)).status, 200)
        // Gone for readers at once; removed by the background purge (src/links/link-delete.test.ts).
        for (const id of attached) assert.equal((await s.request('GET', `/v1/conversations/${id}`)).status, 404)
        await s.container.purger.idle()
        assert.equal(await countConversations('link_id', link), 0)
        for (const id of attached) assert.equal(await countMessages('conversation_id', id), 0)
        assert.equal(await countMessages('conversation_id', unattached), 2, 'other conversations stay')
        assert.equal(await orphans(), 0)
      })
    })

    describe('isolation between owners', () => {
      test("another owner's conversation and messages are 404 everywhere, never listed, never a cursor", async () => {
        const id = await createId({ contact_id: 'secret' })
        const message = (await postMessage(id, { text: 'secret' })).body.id
        const attempts: [string, string, RequestOptions][] = [
          ['GET', `/v1/conversations/${id}`, {}],
          ['PUT', `/v1/conversations/${id}`, { json: { is_muted: true } }],
          ['PATCH', `/v1/conversations/${id}`, { json: { is_muted: true } }],
          ['POST', `/v1/conversations/${id}/open`, {}],
          ['POST', `/v1/conversations/${id}/messages`, { json: { text: 'intrusion' } }],
          ['GET', `/v1/conversations/${id}/messages`, {}],
          ['GET', `/v1/conversations/${id}/messages/${message}`, {}],
          ['DELETE', `/v1/conversations/${id}/messages/${message}`, {}],
          ['DELETE', `/v1/conversations/${id}`, {}],
        ]
        for (const [method, path, options] of attempts) {
          const r = await s.request(method, path, { ...options, token: bob })
          assert.equal(r.status, 404, `${method} ${path}`)
          assert.equal(r.body.error.code, 'not_found')
        }
        const theirs = await create({ contact_id: 'secret' }, { token: bob })
        assert.equal(theirs.status, 201, 'the same contact id is another conversation for another owner')
        const list = await s.request('GET', '/v1/conversations?limit=100', { token: bob })
        assert.deepEqual(ids(list.body.data), [theirs.body.id])
        expect400(await s.request('GET', `/v1/conversations?starting_after=${id}`, { token: bob }), 'starting_after', 'foreign cursor')
        const mine = (await s.request('GET', `/v1/conversations/${id}`)).body
        assert.equal(mine.is_muted, false)
        assert.equal(mine.last_opened_at, null)
        assert.equal(await countMessages('conversation_id', id), 1)
      })

      test('scopes: reads need conversations:read, writes conversations:write', async () => {
        const reader = await s.createToken('alice', ['conversations:read'])
        const writer = await s.createToken('alice', ['conversations:write'])
        assert.equal((await s.request('GET', '/v1/conversations', { token: reader })).status, 200)
        assert.equal((await create({ contact_id: 'scoped' }, { token: reader })).status, 403)
        assert.equal((await s.request('GET', '/v1/conversations', { token: writer })).status, 403)
        assert.equal((await s.request('GET', '/v1/conversations', { token: null })).status, 401)
      })
    })

    describe('list', () => {
      let owner: string
      let expected: string[]
      let link: string
      const list = (query: string, token = owner) => s.request('GET', `/v1/conversations${query}`, { token })

      /** Walks the whole list with the given page size, following starting_after (or ending_before). */
      async function walk(base: string, limit: number, direction: 'starting_after' | 'ending_before', from?: string) {
        const seen: string[] = []
        let cursor = from
        for (;;) {
          const query = `${base}${base.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&${direction}=${cursor}` : ''}`
          const page = await list(query)
          assert.equal(page.status, 200, page.text)
          assert.ok(page.body.data.length <= limit)
          const pageIds = ids(page.body.data)
          if (direction === 'starting_after') seen.push(...pageIds)
          else seen.unshift(...pageIds)
          if (!page.body.has_more) return seen
          assert.equal(page.body.data.length, limit, 'a page that says more follow is full')
          cursor = direction === 'starting_after' ? pageIds.at(-1) : pageIds[0]
        }
      }

      before(async () => {
        owner = await s.createToken('lister')
        link = await createLink(owner)
        const created: string[] = []
        for (let i = 0; i < 27; i++) {
          const fields: Fields = i % 5 === 0 ? { group_id: `g${i}` } : { contact_id: `c${i}` }
          if (i % 4 === 0) fields.link_id = link
          created.push(await createId(fields, owner))
        }
        // Spread the history over time (the API cannot backdate): groups of three share a second,
        // so that the id breaks ties, as the API reference says.
        const base = nowSeconds() - 10_000
        for (const [i, id] of created.entries()) {
          const at = base + Math.floor(i / 3) * 60
          await db().updateTable('conversations').set({ created_at: at, activity_at: at }).where('id', '=', id).execute()
        }
        // Activity lifts an old conversation to the top; muting, pinning, archiving do not move it.
        const oldest = created[0] as string
        await postMessage(oldest, { text: 'back again' }, 'json', owner)
        for (const [i, id] of created.entries()) {
          const fields: Fields = {}
          if (i % 2 === 1) fields.is_muted = true
          if (i % 3 === 1) fields.is_pinned = true
          if (i % 7 === 2) fields.archived_at = base
          if (Object.keys(fields).length > 0) assert.equal((await s.request('PUT', `/v1/conversations/${id}`, { json: fields, token: owner })).status, 200)
        }
        const rows = await db().selectFrom('conversations').selectAll().where('owner_id', '=', 'lister').execute()
        expected = rows.sort((a, b) => (b.last_active_at ?? b.created_at) - (a.last_active_at ?? a.created_at) || (a.id < b.id ? 1 : -1)).map((row) => row.id)
        assert.equal(expected[0], oldest)
      })

      test('default limit 10, most recently active first, then id', async () => {
        const r = await list('')
        assert.equal(r.status, 200)
        assert.deepEqual(Object.keys(r.body).sort(), ['data', 'has_more'])
        assert.equal(r.body.has_more, true)
        assert.deepEqual(ids(r.body.data), expected.slice(0, 10))
        const all = await list('?limit=100')
        assert.equal(all.body.has_more, false)
        assert.deepEqual(ids(all.body.data), expected)
        const sorted = all.body.data.map((c: Conversation) => c.last_active_at ?? c.created_at)
        assert.deepEqual(
          sorted,
          [...sorted].sort((a, b) => b - a),
        )
      })

      test('starting_after pages through all 27 without repeating or skipping, for several page sizes', async () => {
        for (const limit of [1, 7, 10, 13, 27, 100]) assert.deepEqual(await walk('', limit, 'starting_after'), expected, `limit ${limit}`)
      })

      test('ending_before pages back up from the last item to the first', async () => {
        const last = expected.at(-1) as string
        for (const limit of [1, 4, 10]) assert.deepEqual(await walk('', limit, 'ending_before', last), expected.slice(0, -1), `limit ${limit}`)
        const top = await list(`?ending_before=${expected[0]}`)
        assert.deepEqual([top.body.data, top.body.has_more], [[], false])
        const bottom = await list(`?starting_after=${last}`)
        assert.deepEqual([bottom.body.data, bottom.body.has_more], [[], false])
        const near = await list(`?ending_before=${expected[5]}&limit=3`)
        assert.deepEqual(ids(near.body.data), expected.slice(2, 5))
        assert.equal(near.body.has_more, true)
      })

      test('filters: true = only those, false = only the others, absent = no filter; they page too', async () => {
        const all = (await list('?limit=100')).body.data as (Conversation & Record<string, unknown>)[]
        const checks: [string, (c: Record<string, unknown>) => boolean][] = [
          ['muted=true', (c) => c.is_muted === true],
          ['muted=false', (c) => c.is_muted === false],
          ['muted=1', (c) => c.is_muted === true],
          ['pinned=true', (c) => c.is_pinned === true],
          ['pinned=0', (c) => c.is_pinned === false],
          ['archived=true', (c) => c.archived_at !== null],
          ['archived=false', (c) => c.archived_at === null],
          ['muted=false&pinned=true&archived=false', (c) => !c.is_muted && c.is_pinned === true && c.archived_at === null],
          [`link_id=${link}`, (c) => c.link_id === link],
          ['contact_id=c7', (c) => c.contact_id === 'c7'],
          ['group_id=g10', (c) => c.group_id === 'g10'],
          ['contact_id=nobody', () => false],
        ]
        for (const [filter, keep] of checks) {
          const want = all.filter(keep).map((c) => c.id)
          assert.ok(filter.includes('nobody') || want.length > 0, filter)
          assert.deepEqual(ids((await list(`?${filter}&limit=100`)).body.data), want, filter)
          assert.deepEqual(await walk(`?${filter}`, 2, 'starting_after'), want, `${filter} paged`)
        }
      })

      test('parameter errors name the parameter', async () => {
        const cases: [string, string][] = [
          ['?limit=0', 'limit'],
          ['?limit=101', 'limit'],
          ['?limit=abc', 'limit'],
          ['?limit=1.5', 'limit'],
          ['?limit=', 'limit'],
          ['?muted=maybe', 'muted'],
          ['?archived=yes', 'archived'],
          ['?pinned=2', 'pinned'],
          ['?sort=asc', 'sort'],
          ['?contact_id=', 'contact_id'],
          ['?group_id=', 'group_id'],
          ['?link_id=', 'link_id'],
          ['?starting_after=conv_01ZZZZZZZZZZZZZZZZZZZZZZZZ', 'starting_after'],
          ['?ending_before=nope', 'ending_before'],
          [`?starting_after=${expected[0]}&ending_before=${expected[1]}`, 'ending_before'],
        ]
        for (const [query, param] of cases) expect400(await list(query), param, query)
      })

      test('a deleted cursor item is an unknown cursor (400)', async () => {
        const id = await createId({ contact_id: 'fleeting' }, owner)
        assert.equal((await s.request('DELETE', `/v1/conversations/${id}`, { token: owner })).status, 200)
        expect400(await list(`?starting_after=${id}`), 'starting_after', 'deleted cursor')
      })
    })

    describe('message list', () => {
      let id: string
      let posted: string[]
      const list = (query: string) => s.request('GET', `/v1/conversations/${id}/messages${query}`)
      before(async () => {
        id = await createId({ contact_id: 'pager' })
        posted = []
        for (let i = 0; i < 26; i++) posted.push((await postMessage(id, { text: `m${i}`, direction: i % 2 ? 'inbound' : 'outbound' })).body.id)
      })

      test('newest first, default limit 10, paged both ways without repeats or gaps', async () => {
        const newestFirst = posted.slice().reverse()
        const first = await list('')
        assert.deepEqual([ids(first.body.data), first.body.has_more], [newestFirst.slice(0, 10), true])
        const forward: string[] = []
        for (let cursor: string | undefined, more = true; more;) {
          const page = (await list(`?limit=6${cursor ? `&starting_after=${cursor}` : ''}`)).body
          forward.push(...ids(page.data))
          cursor = forward.at(-1)
          more = page.has_more
        }
        assert.deepEqual(forward, newestFirst)
        const backward: string[] = []
        for (let cursor = newestFirst.at(-1), more = true; more;) {
          const page = (await list(`?limit=6&ending_before=${cursor}`)).body
          backward.unshift(...ids(page.data))
          cursor = backward[0]
          more = page.has_more
        }
        assert.deepEqual(backward, newestFirst.slice(0, -1))
      })

      test('cursors must be messages of this conversation', async () => {
        const other = await createId({ contact_id: 'pager-other' })
        const foreign = (await postMessage(other, { text: 'x' })).body.id
        expect400(await list(`?starting_after=${foreign}`), 'starting_after', 'foreign message')
        expect400(await list(`?ending_before=${id}`), 'ending_before', 'a conversation id')
        expect400(await list(`?starting_after=${posted[3]}&ending_before=${posted[5]}`), 'ending_before', 'both')
        for (const [query, param] of [
          ['?limit=0', 'limit'],
          ['?limit=101', 'limit'],
          ['?direction=inbound', 'direction'],
        ]) {
          expect400(await list(query as string), param as string, query as string)
        }
      })
    })

    if (backend === 'sqlite') {
      test('query plans: every list seeks its index and reads it in order, with no scan and no sort step', async () => {
        const repo = createConversationsRepository(db(), sqliteAdapter)
        const cursor = { key: nowSeconds(), id: 'conv_01ZZZZZZZZZZZZZZZZZZZZZZZZ' }
        const plans: [string, { compile(): CompiledQuery }, string][] = [
          ['first page', repo.listQuery('alice', {}, undefined, 'older', 11), 'conversations_owner_activity (owner_id=?)'],
          ['starting_after', repo.listQuery('alice', {}, cursor, 'older', 11), 'conversations_owner_activity (owner_id=? AND activity_at<?)'],
          ['ending_before', repo.listQuery('alice', {}, cursor, 'newer', 11), 'conversations_owner_activity (owner_id=? AND activity_at>?)'],
          [
            'muted, archived',
            repo.listQuery('alice', { muted: true, archived: false }, cursor, 'older', 11),
            'conversations_owner_activity (owner_id=? AND activity_at<?)',
          ],
          ['contact_id', repo.listQuery('alice', { contact_id: 'c' }, cursor, 'older', 11), 'conversations_owner_contact (owner_id=? AND contact_id=?)'],
          ['link_id', repo.listQuery('alice', { link_id: 'lnk_x' }, cursor, 'older', 11), 'conversations_link_activity (link_id=? AND activity_at<?)'],
          ['messages', repo.listMessagesQuery('conv_x', cursor, 'older', 11), 'messages_conversation_created (conversation_id=? AND created_at<?)'],
        ]
        for (const [label, query, index] of plans) {
          const { sql, parameters } = query.compile()
          const plan = await db().executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${sql}`, [...parameters]))
          const details = plan.rows.map((row) => row.detail).join(' | ')
          assert.ok(details.includes(`USING INDEX ${index}`), `${label}: ${details}`)
          assert.doesNotMatch(details, /SCAN|TEMP B-TREE/, `${label}: ${details}`)
        }
      })
    }
  })
}
