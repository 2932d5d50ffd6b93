import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, client, type Domain } from '../api'
import { asyncHandler, confirmed, Empty, ErrorBox, Field, Loading, formatDate, generalError } from '../ui'

export function DomainsPage({ canWrite }: { canWrite: boolean }) {
  const [domains, setDomains] = useState<Domain[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [name, setName] = useState('')
  const [addError, setAddError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const load = () => call(client.GET('/v1/domains')).then((r) => setDomains(r.data), setError)
  useEffect(() => void load(), [])

  const add = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setAddError(null)
    try {
      await call(client.POST('/v1/domains', { body: { name: name.trim() } }))
      setName('')
      await load()
    } catch (err) {
      setAddError(err)
    } finally {
      setBusy(false)
    }
  }
  const remove = async (domain: Domain) => {
    if (!confirmed(`Remove ${domain.name}? Its short links must be moved or deleted first.`)) return
    setError(null)
    try {
      await call(client.DELETE('/v1/domains/{name}', { params: { path: { name: domain.name } } }))
      await load()
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 409
          ? new ApiError(
              409,
              'conflict',
              `${domain.name} cannot be removed while links still use it: delete those links, or move them to another domain, then try again (${err.message})`,
              null,
            )
          : err,
      )
    }
  }
  return (
    <section>
      <header class="page-header">
        <h1>Domains</h1>
      </header>
      {canWrite ? (
        <form class="card" onSubmit={asyncHandler(add)}>
          <h2>Add a custom domain</h2>
          <Field label="Domain name" name="name" error={addError} hint="Point its DNS at this server, then publish the TXT record shown below">
            <input name="name" placeholder="go.example.com" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <ErrorBox error={generalError(addError, ['name'])} />
          <button type="submit" class="primary" disabled={busy || name.trim() === ''}>
            {busy ? 'Adding…' : 'Add domain'}
          </button>
        </form>
      ) : null}
      <ErrorBox error={error} />
      {domains === null && !error ? <Loading what="domains" /> : null}
      {domains?.length === 0 ? <Empty>No domains.</Empty> : null}
      {domains && domains.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Verification</th>
              <th>Added</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {domains.map((d) => (
              <tr key={d.name} data-domain={d.name}>
                <td>
                  <strong>{d.name}</strong> {d.isDefault ? <span class="tag">default</span> : null}
                </td>
                <td>{d.status === 'verified' ? 'verified' : <span class="tag warn">pending</span>}</td>
                <td>
                  {d.verification && d.status === 'pending' ? (
                    <code>
                      {d.verification.name} TXT "{d.verification.value}"
                    </code>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td class="nowrap">{d.createdAt ? formatDate(d.createdAt) : '—'}</td>
                <td class="row-actions">
                  {canWrite && !d.isDefault ? (
                    <button class="small danger" onClick={asyncHandler(() => remove(d))}>
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
