import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { call, client, withQuery, type Breakdown, type Link, type operations, type Stats } from '../api'
import { A, CopyButton, Empty, ErrorBox, Field, Loading, generalError } from '../ui'

const QR_DEFAULTS = { format: 'png', size: '512', margin: '4', ecc: 'M', color: '#000000', background: '#ffffff' }
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
  }
}

function QrPanel({ link }: { link: Link }) {
  const [options, setOptions] = useState<QrOptions>(QR_DEFAULTS)
  const [src, setSrc] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    let live = true
    let url: string | null = null
    // A short pause while someone drags a colour or types a size: one render, not one per keystroke.
    const timer = setTimeout(() => {
      call(client.GET('/v1/links/{id}/qr', { params: { path: { id: link.id }, query: qrQuery(options) }, parseAs: 'blob' }), { quietUnauthorized: true }).then(
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
  }, [link.id, options])
  const set = (name: keyof QrOptions) => (e: Event) => setOptions({ ...options, [name]: (e.currentTarget as HTMLInputElement).value })
  const download = (format: string) => withQuery(`/v1/links/${link.id}/qr`, { ...options, format, download: 1 })
  const fields = ['format', 'size', 'margin', 'ecc', 'color', 'background']
  return (
    <div class="card">
      <h2>QR code</h2>
      <div class="qr-preview">{src ? <img src={src} alt={`QR code for ${link.shortUrl}`} data-format={options.format} /> : <Loading what="the QR code" />}</div>
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
      <ErrorBox error={generalError(error, fields)} />
      <div class="downloads">
        <a href={download('png')} download>
          Download PNG
        </a>
        <a href={download('svg')} download>
          Download SVG
        </a>
      </div>
    </div>
  )
}

function Chart({ stats }: { stats: Stats }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const xs = stats.timeseries.map((p) => Date.parse(p.start) / 1000)
    const ys = stats.timeseries.map((p) => p.clicks)
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 220,
        legend: { show: false },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] } },
        axes: [{}, { size: 40 }],
        series: [{}, { label: 'Clicks', stroke: '#1f4f8f', fill: 'rgba(31,79,143,0.12)', width: 2, points: { show: ys.length < 60 } }],
      },
      [xs, ys],
      el,
    )
    const resize = () => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 })
    window.addEventListener('resize', resize)
    return () => {
      window.removeEventListener('resize', resize)
      plot.destroy()
    }
  }, [stats])
  return <div class="chart" ref={ref} role="img" aria-label={`Clicks per ${stats.interval}`} />
}

function Bars({ title, rows }: { title: string; rows: Breakdown[] }) {
  const max = Math.max(1, ...rows.map((r) => r.clicks))
  return (
    <div class="card" data-breakdown={title}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p class="muted">No visits yet.</p>
      ) : (
        <ul class="bars">
          {rows.map((r) => (
            <li key={r.value}>
              <span>{r.value}</span>
              <span>{r.clicks}</span>
              <span class="bar">
                <span style={{ width: `${(r.clicks / max) * 100}%` }} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10)

function StatsPanel({ link }: { link: Link }) {
  const today = new Date()
  const [range, setRange] = useState<{ from: string; to: string; interval: Stats['interval'] }>({
    from: isoDay(new Date(today.getTime() - 29 * 86_400_000)),
    to: isoDay(today),
    interval: 'day',
  })
  const [stats, setStats] = useState<Stats | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(false)
  const [version, setVersion] = useState(0)
  useEffect(() => {
    let live = true
    setLoading(true)
    // `to` is a day: the whole of it counts.
    const to = new Date(Date.parse(range.to) + 86_400_000 - 1).toISOString()
    call(client.GET('/v1/links/{id}/stats', { params: { path: { id: link.id }, query: { from: range.from, to, interval: range.interval } } }))
      .then(
        (r) => live && (setStats(r.data), setError(null)),
        (e) => live && setError(e),
      )
      .finally(() => live && setLoading(false))
    return () => {
      live = false
    }
  }, [link.id, range, version])
  const set = (name: 'from' | 'to' | 'interval') => (e: Event) => setRange({ ...range, [name]: (e.currentTarget as HTMLInputElement).value })
  const totals =
    stats &&
    ([
      ['Human clicks', stats.humanClicks],
      ['Bot clicks', stats.botClicks],
      ['QR scans', stats.qrScans],
      ['Unique visitors', stats.uniqueVisitors],
      [
        'Last click',
        stats.lastClickedAt
          ? new Date(stats.lastClickedAt).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
          : 'never',
      ],
    ] as const)
  return (
    <div>
      <div class="card">
        <div class="page-header">
          <h2>Statistics</h2>
          <button onClick={() => setVersion(version + 1)} disabled={loading} data-testid="refresh">
            {loading ? 'Refreshing…' : 'Refresh'}
          </button>
        </div>
        <div class="toolbar">
          <Field label="From" name="from" error={error}>
            <input type="date" value={range.from} onInput={set('from')} />
          </Field>
          <Field label="To" name="to" error={error}>
            <input type="date" value={range.to} onInput={set('to')} />
          </Field>
          <Field label="Interval" name="interval" error={error}>
            <select value={range.interval} onChange={set('interval')}>
              <option value="hour">Hour</option>
              <option value="day">Day</option>
              <option value="month">Month</option>
            </select>
          </Field>
        </div>
        <ErrorBox error={generalError(error, ['from', 'to', 'interval'])} />
        {stats === null && error === null ? <Loading what="statistics" /> : null}
        {stats ? (
          <>
            <div class="totals">
              {totals!.map(([name, value]) => (
                <div class="total" key={name} data-total={name}>
                  <div class={typeof value === 'number' ? 'value' : 'value when'}>{value}</div>
                  <div class="name">{name}</div>
                </div>
              ))}
            </div>
            {stats.totalClicks === 0 ? <Empty>No clicks in this range yet. Share {link.shortUrl} and press Refresh.</Empty> : <Chart stats={stats} />}
          </>
        ) : null}
      </div>
      {stats && stats.totalClicks > 0 ? (
        <div class="breakdowns">
          <Bars title="Referrers" rows={stats.referrers} />
          <Bars title="Countries" rows={stats.countries} />
          <Bars title="Browsers" rows={stats.browsers} />
          <Bars title="Operating systems" rows={stats.os} />
          <Bars title="Devices" rows={stats.devices} />
        </div>
      ) : null}
    </div>
  )
}

export function LinkDetailPage({ id }: { id: string; canWrite: boolean }) {
  const [link, setLink] = useState<Link | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call(client.GET('/v1/links/{id}', { params: { path: { id } } })).then((r) => setLink(r.data), setError)
  }, [id])
  if (error)
    return (
      <section>
        <p>
          <A to="/">← Links</A>
        </p>
        <ErrorBox error={error} />
      </section>
    )
  if (!link) return <Loading what="the link" />
  return (
    <section>
      <p>
        <A to="/">← Links</A>
      </p>
      <h1>{link.title ?? link.shortUrl}</h1>
      <p class="link-summary">
        <a href={link.shortUrl} target="_blank" rel="noopener">
          {link.shortUrl}
        </a>{' '}
        <CopyButton text={link.shortUrl} /> → {link.destination}
      </p>
      <div class="detail">
        <QrPanel link={link} />
        <StatsPanel link={link} />
      </div>
    </section>
  )
}
