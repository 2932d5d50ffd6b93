import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, client, type Me, type Member, type OneTimeLink, type Role } from '../api'
import { asyncHandler, confirmed, Empty, ErrorBox, Loading, OneTimeUrl, formatDate, formatDay } from '../ui'
import { grantable } from '../roles'
import { Invitations } from './invitations'

/** The API's 409 for the last owner, said as what to do about it. */
const lastOwner = (member: Member, error: unknown) =>
  error instanceof ApiError && error.status === 409
    ? new ApiError(409, 'last_owner', `${member.email} is its last owner. Make another member an owner first (${error.message})`, null)
    : error

export function MembersPage({ me, canWrite }: { me: Me; canWrite: boolean }) {
  const [members, setMembers] = useState<Member[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [resetLink, setResetLink] = useState<{ member: Member; link: OneTimeLink } | null>(null)
  /** The Reset link button pressed: the focus goes back to it once the link is copied. */
  const resetButton = useRef<HTMLElement | null>(null)
  const load = () => call(client.GET('/v1/members')).then((r) => setMembers(r.data), setError)
  useEffect(() => void load(), [])
  const isOwner = me.principal.role === 'owner'
  const self = me.user?.id

  const act = async (member: Member, work: () => Promise<unknown>) => {
    setError(null)
    try {
      await work()
    } catch (e) {
      setError(lastOwner(member, e))
    }
    // Also after a failure: a role select shows the role the member really has.
    await load()
  }
  const changeRole = (member: Member, role: Role) =>
    act(member, async () => {
      if (role === member.role) return
      if (member.userId === self && !confirmed(`Change your own role to ${role}? You may lose access to this page.`)) return
      await call(client.PATCH('/v1/members/{userId}', { params: { path: { userId: member.userId } }, body: { role } }))
    })
  const remove = (member: Member) =>
    act(member, async () => {
      const you = member.userId === self ? ' This is you: you lose access to this workspace.' : ''
      if (!confirmed(`Remove ${member.email} from this workspace? Their sessions here end and the tokens they made are revoked.${you}`)) return
      await call(client.DELETE('/v1/members/{userId}', { params: { path: { userId: member.userId } } }))
    })
  const resetPassword = (member: Member) =>
    act(member, async () => {
      resetButton.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
      const res = await call(client.POST('/v1/members/{userId}/password-reset', { params: { path: { userId: member.userId } } }))
      setResetLink({ member, link: res.data })
    })

  const roleCell = (m: Member) => {
    // A non-owner cannot change an owner; a viewer of this page changes nothing.
    if (!canWrite || (m.role === 'owner' && !isOwner)) return <span class="tag">{m.role}</span>
    return (
      <select
        aria-label={`Role of ${m.email}`}
        value={m.role}
        onChange={asyncHandler((e: Event) => changeRole(m, (e.currentTarget as HTMLSelectElement).value as Role))}
      >
        {grantable(me).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    )
  }

  return (
    <section>
      <header class="page-header">
        <h1>Members</h1>
      </header>
      <Invitations me={me} canWrite={canWrite} />
      <h2>People in this workspace</h2>
      {resetLink ? (
        <OneTimeUrl
          url={resetLink.link.url}
          title={`Password reset link for ${resetLink.member.email}`}
          testId="reset-link"
          onDone={() => {
            setResetLink(null)
            resetButton.current?.focus()
          }}
        >
          <p class="small-print">Give it to them yourself; it sets a new password once, until {formatDate(resetLink.link.expiresAt)}.</p>
        </OneTimeUrl>
      ) : null}
      <ErrorBox error={error} />
      {members === null && !error ? <Loading what="members" /> : null}
      {members?.length === 0 ? <Empty>No members yet: invite someone.</Empty> : null}
      {members && members.length > 0 ? (
        <table class="cards" data-testid="members">
          <thead>
            <tr>
              <th>Person</th>
              <th>Role</th>
              <th>Joined</th>
              <th>Last sign-in</th>
              {canWrite ? (
                <th>
                  <span class="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.userId} data-member={m.email}>
                <td data-label="Person">
                  <span class="person">
                    <strong>
                      {m.name || m.email} {m.userId === self ? <span class="tag">you</span> : null}
                    </strong>
                    {m.name ? <span class="muted wrap-anywhere">{m.email}</span> : null}
                  </span>
                </td>
                <td data-label="Role">{roleCell(m)}</td>
                <td data-label="Joined" class="nowrap">
                  {formatDay(m.createdAt)}
                </td>
                <td data-label="Last sign-in">{m.lastSignInAt ? formatDate(m.lastSignInAt) : <span class="muted">never</span>}</td>
                {canWrite ? (
                  <td class="row-actions">
                    <button class="small" onClick={asyncHandler(() => resetPassword(m))} aria-label={`Reset link for ${m.email}`}>
                      Reset link
                    </button>
                    <button class="small danger" onClick={asyncHandler(() => remove(m))} aria-label={`Remove ${m.email}`}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
