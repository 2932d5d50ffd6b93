import { useEffect, useState } from 'preact/hooks'
import { call, client, withQuery, type Domain, type Link, type operations } from '../api'
import { AnalyticsView } from '../analytics'
import { noteCreated, useTitlePoll } from '../page-titles'
import { BASE, navigate } from '../router'
import { A, asyncHandler, confirmed, CopyButton, ErrorBox, Field, HealthBadge, Loading, generalError } from '../ui'
import { LinkForm } from './link-form'
import { Settings } from './link-settings'
import { QrLogo, type WorkspaceLogo } from './qr-logo'
import './link-editor.css'

const QR_DEFAULTS = { format: 'png', size: '512', margin: '4', ecc: 'M', color: '#000000', background: '#ffffff', logo: '' }
type QrOptions = typeof QR_DEFAULTS
type QrQuery = NonNullable<operations['getLinksByIdQr']['parameters']['query']>

/** The form's texts as the endpoint's query: numbers as numbers, an emptied box left out. */
const qrQuery = (options: QrOptions): QrQuery => {
  const number = (text: string) => (text.trim() === '' ? undefined : Number(text))
  return {
    ...options,
    format: options.format as QrQuery['format'],
    ecc: options.ecc as QrQuery['ecc'],
    size: number(options.size),
    margin: number(options.margin),
    logo: options.logo === '1' || undefined,
  }
}

function QrPanel({ link, canEditLogo }: { link: Link; canEditLogo: boolean }) {
  const [options, setOptions] = useState<QrOptions>(QR_DEFAULTS)
  const [logo, setLogo] = useState<WorkspaceLogo | null>(null)
  // An SVG logo goes on SVG codes only (the server rasterises no SVG): the preview is then an SVG.
  const svgLogoOnly = options.logo === '1' && logo?.type === 'image/svg+xml'
  const shown = svgLogoOnly ? { ...options, format: 'svg' } : options
  const [src, setSrc] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    let live = true
    let url: string | null = null
    // A short pause while someone drags a colour or types a size: one render, not one per keystroke.
    const timer = setTimeout(() => {
      call(client.GET('/v1/links/{id}/qr', { params: { path: { id: link.id }, query: qrQuery(shown) }, parseAs: 'blob' }), { quietUnauthorized: true }).then(
        (blob) => {
          if (!live) return
          url = URL.createObjectURL(blob)
          setSrc(url)
          setError(null)
        },
        (e) => live && setError(e),
      )
    }, 200)
    return () => {
      live = false
      clearTimeout(timer)
      if (url) URL.revokeObjectURL(url)
    }
  }, [link.id, options, logo?.url, svgLogoOnly])
  const set = (name: keyof QrOptions) => (e: Event) => setOptions({ ...options, [name]: (e.currentTarget as HTMLInputElement).value })
  const download = (format: string) => withQuery(`/v1/links/${link.id}/qr`, { ...options, format, download: 1 })
  const fields = ['format', 'size', 'margin', 'ecc', 'color', 'background', 'logo']
  return (
    <div class="card">
      <h2>QR code</h2>
      <div class="qr-preview">{src ? <img src={src} alt={`QR code for ${link.shortUrl}`} data-format={shown.format} /> : <Loading what="the QR code" />}</div>
      <div class="qr-form">
        <Field label="Format" name="format" error={error}>
          <select value={options.format} onChange={set('format')}>
            <option value="png">PNG</option>
            <option value="svg">SVG</option>
          </select>
        </Field>
        <Field label="Error correction" name="ecc" error={error}>
          <select value={options.ecc} onChange={set('ecc')}>
            <option value="L">L (7%)</option>
            <option value="M">M (15%)</option>
            <option value="Q">Q (25%)</option>
            <option value="H">H (30%)</option>
          </select>
        </Field>
        <Field label="Size (px)" name="size" error={error}>
          <input name="size" type="number" min={64} max={4096} value={options.size} onInput={set('size')} />
        </Field>
        <Field label="Margin" name="margin" error={error}>
          <input name="margin" type="number" min={0} max={32} value={options.margin} onInput={set('margin')} />
        </Field>
        <Field label="Colour" name="color" error={error}>
          <input name="color" type="color" value={options.color} onInput={set('color')} />
        </Field>
        <Field label="Background" name="background" error={error}>
          <input name="background" type="color" value={options.background} onInput={set('background')} />
        </Field>
      </div>
      <QrLogo
        logo={logo}
        onLogo={setLogo}
        withLogo={options.logo === '1'}
        onToggle={(on) => setOptions((o) => ({ ...o, logo: on ? '1' : '' }))}
        canEdit={canEditLogo}
      />
      <ErrorBox error={generalError(error, fields)} />
      <div class="downloads">
        <a href={download('png')} download hidden={svgLogoOnly}>
          Download PNG
        </a>
        <a href={download('svg')} download>
          Download SVG
        </a>
      </div>
    </div>
  )
}

/** Anyone with the address may read this link's statistics, when its owner turns this on. */
function PublicStats({ link, canWrite, onChange }: { link: Link; canWrite: boolean; onChange: (link: Link) => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const url = `${location.origin}${BASE}/public/${link.id}`
  const toggle = async (publicStats: boolean) => {
    setBusy(true)
    setError(null)
    try {
      onChange((await call(client.PATCH('/v1/links/{id}', { params: { path: { id: link.id } }, body: { publicStats } }))).data)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="card public-stats">
      <h2>Public statistics</h2>
      <label class="inline-check">
        <input
          type="checkbox"
          checked={link.publicStats}
          disabled={!canWrite || busy}
          onChange={asyncHandler((e: Event) => toggle((e.currentTarget as HTMLInputElement).checked))}
        />{' '}
        Anyone with the address can see this link’s statistics, without signing in
      </label>
      {link.publicStats ? (
        <p class="public-url" data-testid="public-url">
          <a href={url} target="_blank" rel="noopener">
            {url}
          </a>{' '}
          <CopyButton text={url} />
        </p>
      ) : null}
      <ErrorBox error={error} />
    </div>
  )
}

/** Every visit recorded within the retention period, one row each (docs/api/export-import.md). */
function VisitsExport({ link }: { link: Link }) {
  const href = (format: 'csv' | 'ndjson') => withQuery(`/v1/links/${encodeURIComponent(link.id)}/clicks`, { format })
  return (
    <div class="card">
      <h2>Visits</h2>
      <p class="muted">Each recorded visit: time, referrer, browser, system, device, country, QR scan or bot. Never an address.</p>
      <p class="actions">
        <a class="button" href={href('csv')} download data-testid="visits-csv">
          Download CSV
        </a>{' '}
        <a class="button" href={href('ndjson')} download>
          Download NDJSON
        </a>
      </p>
    </div>
  )
}

/** The destination's health, and a check on demand (POST /v1/links/{id}/check answers the link with its new health). */
function Health({ link, canWrite, onChange }: { link: Link; canWrite: boolean; onChange: (link: Link) => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const check = async () => {
    setBusy(true)
    setError(null)
    try {
      onChange((await call(client.POST('/v1/links/{id}/check', { params: { path: { id: link.id } } }))).data)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <span class="link-health">
      <HealthBadge health={link.health} />
      {canWrite ? (
        <button type="button" class="small" disabled={busy} onClick={asyncHandler(check)}>
          {busy ? 'Checking…' : 'Check now'}
        </button>
      ) : null}
      <ErrorBox error={error} />
    </span>
  )
}

export function LinkDetailPage({ id, canWrite, canEditLogo }: { id: string; canWrite: boolean; canEditLogo: boolean }) {
  const [link, setLink] = useState<Link | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [version, setVersion] = useState(0)
  /** The form open above the page: this link to edit, or a copy of it to create. */
  const [form, setForm] = useState<'edit' | 'duplicate' | null>(null)
  const [domains, setDomains] = useState<Domain[] | null>(null)
  const [actionError, setActionError] = useState<unknown>(null)
  useEffect(() => {
    call(client.GET('/v1/links/{id}', { params: { path: { id } } })).then((r) => setLink(r.data), setError)
  }, [id, version])
  // Opened right after its creation, the link may still be waiting for its page's title.
  useTitlePoll(link, () => setVersion((v) => v + 1))
  // The form offers the domains a link may use; asked for once, when it first opens.
  useEffect(() => {
    if (form === null || domains !== null) return
    call(client.GET('/v1/domains')).then(
      (r) => setDomains(r.data),
      () => setDomains([]),
    )
  }, [form])
  /** Closes the form and gives the focus back to the button that opened it. */
  const close = (action: 'edit' | 'duplicate') => {
    setForm(null)
    setTimeout(() => document.querySelector<HTMLElement>(`[data-action="${action}"]`)?.focus())
  }
  const remove = async (doomed: Link) => {
    if (!confirmed(`Delete ${doomed.shortUrl}? Its statistics and conversations go with it, and the short URL stops working at once.`)) return
    setActionError(null)
    try {
      await call(client.DELETE('/v1/links/{id}', { params: { path: { id: doomed.id } } }))
      navigate('/')
    } catch (e) {
      setActionError(e)
    }
  }
  if (error)
    return (
      <section>
        <p>
          <A to="/">← Links</A>
        </p>
        <ErrorBox error={error} />
      </section>
    )
  // Asked for with the link, not after it: on a slow connection the numbers come a round trip sooner.
  const stats = (
    <AnalyticsView
      scope={{ kind: 'link', linkId: id }}
      csv
      emptyHint={<>No clicks in this range yet. Share {link ? link.shortUrl : 'the link'} and press Refresh.</>}
    />
  )
  if (!link)
    return (
      <section>
        <Loading what="the link" />
        <div class="detail" key="detail">
          <div class="side" />
          {stats}
        </div>
      </section>
    )
  return (
    <section>
      <p>
        <A to="/">← Links</A>
      </p>
      <header class="page-header link-header">
        <h1>{link.title ?? link.shortUrl}</h1>
        {canWrite ? (
          <div class="actions">
            <button type="button" data-action="edit" aria-expanded={form === 'edit'} onClick={() => setForm('edit')}>
              Edit
            </button>
            <button type="button" data-action="duplicate" aria-expanded={form === 'duplicate'} onClick={() => setForm('duplicate')}>
              Duplicate
            </button>
            <button type="button" class="danger" data-action="delete" onClick={asyncHandler(() => remove(link))}>
              Delete
            </button>
          </div>
        ) : null}
      </header>
      <ErrorBox error={actionError} />
      {form !== null && domains !== null ? (
        <LinkForm
          // A new form for each: Duplicate after Edit starts afresh.
          key={form}
          link={form === 'edit' ? link : null}
          template={form === 'duplicate' ? link : undefined}
          domains={domains}
          onCancel={() => close(form)}
          onSaved={(saved) => {
            if (form === 'edit') {
              setLink(saved)
              close('edit')
              return
            }
            noteCreated(saved)
            setForm(null)
            setLink(saved)
            navigate(`/links/${saved.id}`)
          }}
        />
      ) : null}
      <p class="link-summary">
        <a href={link.shortUrl} target="_blank" rel="noopener">
          {link.shortUrl}
        </a>{' '}
        <CopyButton text={link.shortUrl} /> → {link.destination} <Health link={link} canWrite={canWrite} onChange={setLink} />
      </p>
      <div class="detail" key="detail">
        <div class="side">
          <Settings link={link} />
          <QrPanel link={link} canEditLogo={canEditLogo} />
          <PublicStats link={link} canWrite={canWrite} onChange={setLink} />
          <VisitsExport link={link} />
        </div>
        {stats}
      </div>
    </section>
  )
}
