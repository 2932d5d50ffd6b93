import assert from 'node:assert/strict'
import type { Role } from '../src/accounts/roles.js'
import type { TestServer } from './build-test-app.js'
import type { RequestOptions, Response } from './http-client.js'

/** A password long enough for the accounts rules, shared by every person the tests create. */
export const PASSWORD = 'correct horse battery staple'

export interface Person {
  readonly id: string
  readonly email: string
  readonly password: string
}

let sequence = 0

/** A person (created through the container: invitations are another flow) who belongs to `workspaceId` as `role`. */
export async function person(s: Pick<TestServer, 'container'>, workspaceId: string, role: Role, name: string = role): Promise<Person> {
  const email = `${name}-${++sequence}-${process.pid}@example.com`
  const user = await s.container.accounts.createUser({ email, name, password: PASSWORD })
  await s.container.accounts.join(user.id, workspaceId, role)
  return { id: user.id, email, password: PASSWORD }
}

/** The session cookie a response set, as a request's `Cookie` header (empty when none was set). */
export function cookieOf(res: Response): string {
  const header = [res.headers['set-cookie'] ?? []].flat()[0] ?? ''
  const value = /^linkline_session=([^;]*)/.exec(header)?.[1] ?? ''
  return value === '' ? '' : `linkline_session=${value}`
}

/** POST /v1/sessions with an email and a password, from the dashboard's own origin. */
export const signInRequest = (s: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.request('POST', '/v1/sessions', { token: null, json: body, headers: { origin: `http://${s.host}`, ...headers } })

/** Signs `who` in and returns their session cookie. */
export async function signIn(s: TestServer, who: Pick<Person, 'email' | 'password'>): Promise<string> {
  const res = await signInRequest(s, { email: who.email, password: who.password })
  assert.equal(res.status, 201, res.text)
  const cookie = cookieOf(res)
  assert.notEqual(cookie, '')
  return cookie
}

/** A request as the browser holding `cookie` sends it: no bearer token, the dashboard's Origin. */
export const asBrowser = (s: TestServer, cookie: string, options: RequestOptions = {}): RequestOptions => ({
  ...options,
  token: null,
  headers: { cookie, origin: `http://${s.host}`, ...options.headers },
})

/** The session cookie a `Set-Cookie` header sets, as a `Cookie` header ('' when it sets none). */
export function sessionCookieOf(setCookie: string[] | string | undefined): string {
  const value = /^linkline_session=([^;]*)/.exec([setCookie ?? []].flat()[0] ?? '')?.[1]
  return value === undefined || value === '' ? '' : `linkline_session=${value}`
}

export interface SignedInPerson {
  id: string
  email: string
  /** A `Cookie` header of a session of theirs, and the Origin the dashboard sends with it. */
  headers: Record<string, string>
}

/** Signs in with an email and password: the headers of a dashboard request in that session. */
export async function signInHeaders(s: TestServer, email: string, password = PASSWORD): Promise<Record<string, string>> {
  return { cookie: await signIn(s, { email, password }), origin: `http://${s.host}` }
}

/** A person with this email in `workspaceId` with `role`, made through the services, signed in over HTTP. */
export async function signedInPerson(s: TestServer, email: string, workspaceId: string, role: Role, password = PASSWORD): Promise<SignedInPerson> {
  const user = await s.container.accounts.createUser({ email, name: email.split('@')[0], password })
  await s.container.accounts.join(user.id, workspaceId, role)
  return { id: user.id, email, headers: await signInHeaders(s, email, password) }
}
