import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, client, type Domain, type MissingPath } from '../api'
import { A, asyncHandler, confirmed, CopyButton, Empty, ErrorBox, Field, Loading, formatDate, generalError } from '../ui'
import './domains.css'

/** What the last "Verify now" of a domain found: the answer's time and status, or why it failed. */
type Outcome = { checking: true } | { checking: false; domain: Domain } | { checking: false; error: unknown }

/** DNS knows no ports: records are about the host name alone. */
const hostnameOf = (name: string) => name.replace(/:\d+$/, '')

/**
 * Where a custom domain should point: the host this dashboard is served from. A name gets a CNAME to
 * it; an address (a server reached by IP) gets an A or AAAA record, since a CNAME cannot hold one.
 */
function serverTarget(): { type: 'A' | 'AAAA' | 'CNAME'; value: string } {
  const host = location.hostname
  if (host.startsWith('[')) return { type: 'AAAA', value: host.slice(1, -1) }
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return { type: 'A', value: host }
  return { type: 'CNAME', value: host }
}

/** One DNS record to publish, its name and value each with a Copy button. */
function DnsRecord({ type, name, value }: { type: string; name: string; value: string }) {
  return (
    <dl class="dns-record" data-record={type}>
      <div>
        <dt>Type</dt>
        <dd>
          <code>{type}</code>
        </dd>
      </div>
      <div>
        <dt>Name</dt>
        <dd>
          <code>{name}</code>
          <CopyButton text={name} label="Copy name" />
        </dd>
      </div>
      <div>
        <dt>Value</dt>
        <dd>
          <code>{value}</code>
          <CopyButton text={value} label="Copy value" />
        </dd>
      </div>
    </dl>
  )
}

/** How to send a domain's visitors to this server: a CNAME to its host, or A/AAAA records to its address. */
function PointAtServer({ domain }: { domain: Domain }) {
  const host = hostnameOf(domain.name)
  const target = serverTarget()
  return (
    <>
      {target.type === 'CNAME' ? (
        <p>
          Add a <strong>CNAME</strong> record so that <strong>{host}</strong> leads to the same server as this dashboard, <strong>{target.value}</strong>.
        </p>
      ) : (
        <p>
          Add an <strong>{target.type}</strong> record so that <strong>{host}</strong> leads to this server's address, <strong>{target.value}</strong>.
        </p>
      )}
      <DnsRecord type={target.type} name={host} value={target.value} />
      <p class="muted small-print">
        {target.type === 'CNAME'
          ? `If ${host} is the top of your zone (example.com itself, where DNS allows no CNAME), add A and AAAA records with the addresses of ${target.value} instead. `
          : ''}
        If this server sits behind a proxy or load balancer, point the name at that instead. Some DNS providers want names without your zone (<code>go</code>{' '}
        rather than <code>go.example.com</code>).
      </p>
    </>
  )
}

/** The words for what "Verify now" found. */
function OutcomeText({ outcome }: { outcome: Outcome }) {
  if (outcome.checking) return <>Looking the TXT record up…</>
  if ('error' in outcome) return <ErrorBox error={outcome.error} />
  const { domain } = outcome
  if (domain.status === 'verified') return <strong class="verified-now">Verified: {domain.name} now takes links and serves them.</strong>
  return (
    <>
      <strong>Not verified yet.</strong> At {formatDate(domain.lastCheckedAt)} no TXT record named <code>{domain.verification?.name}</code> held the value above
      (or DNS did not answer). A new record can take from minutes to a few hours to be seen everywhere: check its name and value, then try again. The server
      also looks again every few minutes.
    </>
  )
}

/** A pending domain's three steps: point it here, publish the TXT record, verify. */
function Setup({ domain, canWrite, outcome, verify }: { domain: Domain; canWrite: boolean; outcome: Outcome | undefined; verify: () => Promise<void> }) {
  const verification = domain.verification
  return (
    <ol class="setup">
      <li>
        <h3>Point {hostnameOf(domain.name)} at this server</h3>
        <PointAtServer domain={domain} />
      </li>
      {verification ? (
        <li>
          <h3>Prove it is yours</h3>
          <p>Publish this TXT record. It shows you control the name; until it is found, the domain takes no link and serves nothing.</p>
          <DnsRecord type="TXT" name={verification.name} value={verification.value} />
        </li>
      ) : null}
      <li>
        <h3>Verify</h3>
        <p class="small-print muted">An unverified claim ends after 72 hours unless you verify it (or add it again).</p>
        {canWrite ? (
          <button type="button" class="primary" disabled={outcome?.checking} aria-label={`Verify ${domain.name} now`} onClick={asyncHandler(verify)}>
            {outcome?.checking ? 'Verifying…' : 'Verify now'}
          </button>
        ) : null}
        <div class="outcome" role="status" data-testid="verify-outcome">
          {outcome ? <OutcomeText outcome={outcome} /> : null}
        </div>
      </li>
    </ol>
  )
}

function DomainCard(props: {
  domain: Domain
  canWrite: boolean
  focus: boolean
  outcome: Outcome | undefined
  verify: () => Promise<void>
  remove: () => Promise<void>
}) {
  const { domain: d, canWrite, outcome } = props
  const heading = useRef<HTMLHeadingElement>(null)
  // The domain just added: the focus moves to it, where its DNS records are.
  useEffect(() => void (props.focus && heading.current?.focus()), [props.focus])
  const links = `${d.linkCount} ${d.linkCount === 1 ? 'link' : 'links'}`
  return (
    <li class="card domain" data-domain={d.name}>
      <div class="domain-head">
        <h2 tabIndex={-1} ref={heading}>
          {d.name}
        </h2>
        <span class="domain-facts">
          {/* A default domain needs no verification: saying so would be noise. */}
          {d.isDefault ? (
            <span class="tag">default</span>
          ) : d.status === 'verified' ? (
            <span class="tag">verified</span>
          ) : (
            <span class="tag warn">pending verification</span>
          )}
          <span class="link-count" data-testid="link-count">
            {d.linkCount > 0 ? <A to={`/?domain=${encodeURIComponent(d.name)}`}>{links}</A> : links}
          </span>
          {d.createdAt ? <span class="muted small-print">added {formatDate(d.createdAt)}</span> : null}
        </span>
        {canWrite && !d.isDefault ? (
          <button type="button" class="small danger" aria-label={`Remove ${d.name}`} onClick={asyncHandler(props.remove)}>
            Remove
          </button>
        ) : null}
      </div>
      {d.isDefault ? null : d.status === 'pending' ? (
        <Setup domain={d} canWrite={canWrite} outcome={outcome} verify={props.verify} />
      ) : (
        <>
          {outcome ? (
            <div class="outcome" role="status" data-testid="verify-outcome">
              <OutcomeText outcome={outcome} />
            </div>
          ) : null}
          <details class="dns-help">
            <summary>DNS records for {hostnameOf(d.name)}</summary>
            <PointAtServer domain={d} />
            <p class="muted small-print">The TXT record has done its work: a verified domain is not looked up again, so you may remove it.</p>
          </details>
        </>
      )}
    </li>
  )
}

export function DomainsPage({ canWrite }: { canWrite: boolean }) {
  const [domains, setDomains] = useState<Domain[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [name, setName] = useState('')
  const [addError, setAddError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [added, setAdded] = useState<string | null>(null)
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({})
  const load = () => call(client.GET('/v1/domains')).then((r) => setDomains(r.data), setError)
  useEffect(() => void load(), [])

  const add = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setAddError(null)
    try {
      const created = await call(client.POST('/v1/domains', { body: { name: name.trim() } }))
      setName('')
      await load()
      setAdded(created.data.name)
    } catch (err) {
      setAddError(err)
    } finally {
      setBusy(false)
    }
  }
  const verify = async (domain: Domain) => {
    const record = (outcome: Outcome) => setOutcomes((all) => ({ ...all, [domain.name]: outcome }))
    record({ checking: true })
    try {
      const checked = await call(client.POST('/v1/domains/{name}/verify', { params: { path: { name: domain.name } } }))
      record({ checking: false, domain: checked.data })
      setDomains((all) => all?.map((d) => (d.name === checked.data.name ? checked.data : d)) ?? null)
    } catch (err) {
      record({ checking: false, error: err })
    }
  }
  const remove = async (domain: Domain) => {
    const uses = domain.linkCount > 0 ? ` ${domain.linkCount} of your links use it: they must be moved or deleted first.` : ''
    if (!confirmed(`Remove ${domain.name}?${uses}`)) return
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
    <section class="domains-page">
      <header class="page-header">
        <h1>Domains</h1>
      </header>
      {canWrite ? (
        <form class="card" onSubmit={asyncHandler(add)}>
          <h2>Add a custom domain</h2>
          <Field label="Domain name" name="name" error={addError} hint="A name you control, such as go.example.com: the DNS records to publish follow">
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
        <ul class="domain-list" aria-label="Domains">
          {domains.map((d) => (
            <DomainCard
              key={d.name}
              domain={d}
              canWrite={canWrite}
              focus={d.name === added}
              outcome={outcomes[d.name]}
              verify={() => verify(d)}
              remove={() => remove(d)}
            />
          ))}
        </ul>
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
