import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, client, type Invitation, type Me, type Role } from '../api'
import { asyncHandler, confirmed, ErrorBox, Field, OneTimeUrl, formatDate, generalError } from '../ui'
import { grantable } from '../roles'

/** Inviting someone (the one-time URL shown once), and the invitations nobody has accepted yet. */
export function Invitations({ me, canWrite }: { me: Me; canWrite: boolean }) {
  const [pending, setPending] = useState<Invitation[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Role>('member')
  const [created, setCreated] = useState<Invitation | null>(null)
  const [inviteError, setInviteError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const emailInput = useRef<HTMLInputElement>(null)
  const load = () =>
    call(client.GET('/v1/invitations')).then(
      (r) => setPending(r.data),
      // Seeing members without seeing invitations is possible: then there is simply no list.
      (e) => (e instanceof ApiError && e.status === 403 ? setPending([]) : setError(e)),
    )
  useEffect(() => void load(), [])

  const invite = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setInviteError(null)
    try {
      const res = await call(client.POST('/v1/invitations', { body: { email: email.trim(), role } }))
      setCreated(res.data)
      setEmail('')
      await load()
    } catch (e) {
      setInviteError(e)
      // The Invite button was disabled while it worked, which took the focus away: back to the form.
      emailInput.current?.focus()
    } finally {
      setBusy(false)
    }
  }
  const revoke = async (invitation: Invitation) => {
    if (!confirmed(`Withdraw the invitation of ${invitation.email}? Its link stops working.`)) return
    setError(null)
    try {
      await call(client.DELETE('/v1/invitations/{id}', { params: { path: { id: invitation.id } } }))
    } catch (e) {
      setError(e)
    }
    await load()
  }

  return (
    <>
      {canWrite ? (
        <form class="card invite" onSubmit={asyncHandler(invite)}>
          <h2>Invite someone</h2>
          <div class="invite-fields">
            <Field label="Email" name="email" error={inviteError}>
              <input
                ref={emailInput}
                name="email"
                type="email"
                autocomplete="off"
                placeholder="name@example.com"
                value={email}
                onInput={(e) => setEmail(e.currentTarget.value)}
                required
              />
            </Field>
            <Field label="Role" name="role" error={inviteError}>
              <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
                {grantable(me).map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Inviting…' : 'Invite'}
            </button>
          </div>
          <p class="small-print muted">Viewers read everything; members also make links; admins also manage domains, webhooks, tokens and people.</p>
          <ErrorBox error={generalError(inviteError, ['email', 'role'])} />
          {created?.url ? (
            <OneTimeUrl
              url={created.url}
              title={`Invitation for ${created.email} as ${created.role}`}
              testId="new-invitation"
              onDone={() => {
                setCreated(null)
                emailInput.current?.focus()
              }}
            >
              <p class="small-print">
                Send it to them. When this server sends mail, they were also emailed. It works once, until {formatDate(created.expiresAt)}.
              </p>
            </OneTimeUrl>
          ) : null}
        </form>
      ) : null}
      <ErrorBox error={error} />
      {pending && pending.length > 0 ? (
        <>
          <h2>Pending invitations</h2>
          <table class="cards" data-testid="invitations">
            <thead>
              <tr>
                <th>Email</th>
                <th>Role</th>
                <th>Expires</th>
                {canWrite ? (
                  <th>
                    <span class="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {pending.map((i) => (
                <tr key={i.id} data-invitation={i.email}>
                  <td data-label="Email" class="wrap-anywhere">
                    {i.email}
                  </td>
                  <td data-label="Role">
                    <span class="tag">{i.role}</span>
                  </td>
                  <td data-label="Expires" class="nowrap">
                    {formatDate(i.expiresAt)}
                  </td>
                  {canWrite ? (
                    <td class="row-actions">
                      <button class="small danger" onClick={asyncHandler(() => revoke(i))} aria-label={`Revoke the invitation of ${i.email}`}>
                        Revoke
                      </button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </>
  )
}
