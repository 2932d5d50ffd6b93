import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, client, type Domain, type MissingPath } from '../api'
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
        <div class="table-wrap">
          <table class="cards domains">
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
                  <td data-label="Status">{d.status === 'verified' ? 'verified' : <span class="tag warn">pending</span>}</td>
                  <td data-label="Verification">
                    {d.verification && d.status === 'pending' ? (
                      <code>
                        {d.verification.name} TXT "{d.verification.value}"
                      </code>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td class="nowrap" data-label="Added">
                    {d.createdAt ? formatDate(d.createdAt) : '—'}
                  </td>
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
        </div>
      ) : null}
      {domains && domains.length > 0 ? <MissingPaths domains={domains} /> : null}
    </section>
  )
}

/**
 * Paths people visit on a domain where no link answers (a typo in print, a link deleted too soon):
 * the busiest over the last 30 days, to make the missing links.
 */
function MissingPaths({ domains }: { domains: Domain[] }) {
  const [domain, setDomain] = useState('')
  const [rows, setRows] = useState<MissingPath[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    let live = true
    setRows(null)
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10)
    call(client.GET('/v1/stats/not-found', { params: { query: { from, ...(domain ? { domain } : {}) } } })).then(
      (r) => live && (setRows(r.data), setError(null)),
      (e) => live && setError(e),
    )
    return () => {
      live = false
    }
  }, [domain])
  return (
    <div class="card missing-paths" data-testid="missing-paths">
      <div class="page-header">
        <h2>Missing paths</h2>
        <select aria-label="Missing paths on" value={domain} onChange={(e) => setDomain(e.currentTarget.value)}>
          <option value="">All domains</option>
          {domains.map((d) => (
            <option key={d.name} value={d.name}>
              {d.name}
            </option>
          ))}
        </select>
      </div>
      <p class="muted small-print">Visits in the last 30 days to paths that name no link, busiest first: candidates for a new link.</p>
      <ErrorBox error={error} />
      {rows === null && !error ? <Loading what="missing paths" /> : null}
      {rows?.length === 0 ? <Empty>No visits to missing paths.</Empty> : null}
      {rows && rows.length > 0 ? (
        <div class="table-wrap">
          <table class="cards">
            <thead>
              <tr>
                <th>Path</th>
                <th class="num">Visits</th>
                <th>Last seen</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.domain}${r.path}`} data-missing={`${r.domain}${r.path}`}>
                  <td class="destination">
                    {r.domain}
                    <strong>{r.path}</strong>
                  </td>
                  <td class="num" data-label="Visits">
                    {r.clicks.toLocaleString()}
                  </td>
                  <td class="nowrap" data-label="Last seen">
                    {formatDate(r.lastAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  )
}
