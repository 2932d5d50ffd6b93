import assert from 'node:assert/strict'
import type { Role } from '../src/accounts/roles.js'
import type { TestServer } from './build-test-app.js'

/** A clock the test moves forward: the container reads "now" from it. */
export const movableClock = () => {
  let offset = 0
  return {
    now: () => Date.now() + offset,
    advance: (ms: number) => {
      offset += ms
    },
  }
}

/** The session cookie a response sets, as a `Cookie` header ('' when it sets none). */
export function sessionCookieOf(setCookie: string[] | string | undefined): string {
  const value = /^linkline_session=([^;]*)/.exec([setCookie ?? []].flat()[0] ?? '')?.[1]
  return value === undefined || value === '' ? '' : `linkline_session=${value}`
}

export const PASSWORD = 'a long enough password'

export interface Person {
  id: string
  email: string
  /** A `Cookie` header of a session of theirs, and the Origin the dashboard sends with it. */
  headers: Record<string, string>
}

/** A person in `workspaceId` with `role`, made through the services, signed in over HTTP. */
export async function person(s: TestServer, email: string, workspaceId: string, role: Role, password = PASSWORD): Promise<Person> {
  const user = await s.container.accounts.createUser({ email, name: email.split('@')[0], password })
  await s.container.accounts.join(user.id, workspaceId, role)
  return { id: user.id, email, headers: await signIn(s, email, password) }
}

/** Signs in with an email and password: the headers of a dashboard request in that session. */
export async function signIn(s: TestServer, email: string, password = PASSWORD): Promise<Record<string, string>> {
  const res = await s.request('POST', '/v1/sessions', { token: null, json: { email, password } })
  assert.equal(res.status, 201, res.text)
  return { cookie: sessionCookieOf(res.headers['set-cookie']), origin: `http://${s.host}` }
}
