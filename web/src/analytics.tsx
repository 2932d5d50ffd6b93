// One analytics view for every page that shows statistics: the Analytics page (all links, a tag, a
// domain), a link's page and a public link's page. The page gives the scope; the range lives in the
// URL (`?range=7d`, or `?range=custom&from=…&to=…`), so a reload or Back shows the same view.
import type { ComponentChildren, FunctionComponent } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, type Breakdown } from './api'
import { useQueryState, useRoute } from './router'
import { loadStats, statsUrl, type AnalyticsStats, type Interval, type Range, type Scope, type TopLink } from './stats-api'
import { Chart } from './clicks-chart'
import { A, Empty, ErrorBox, Field, Loading, generalError } from './ui'

type MapProps = { rows: Breakdown[]; picked: string | null }
let worldMap: Promise<FunctionComponent<MapProps>> | null = null
/** The world map, its code and data fetched the first time one is shown (a chunk of its own). */
function WorldMap(props: MapProps) {
  const [Map, setMap] = useState<FunctionComponent<MapProps> | null>(null)
  useEffect(() => {
    worldMap ??= import('./world-map').then((m) => m.default)
    worldMap.then(
      (component) => setMap(() => component),
      () => {
        // Offline after an update, say: the list below still says it all.
        worldMap = null
      },
    )
  }, [])
  return Map ? <Map {...props} /> : <div class="world-map" />
}

export const PRESETS = [
  { id: '24h', label: '24 h' },
  { id: '7d', label: '7 d' },
  { id: '30d', label: '30 d' },
  { id: '90d', label: '90 d' },
  { id: 'custom', label: 'Custom' },
] as const
type Preset = (typeof PRESETS)[number]['id']

const DAY = 86_400_000
/** A local calendar date (`2026-11-28`): with `tz`, the server reads it in the same zone. */
const localDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`

/** A custom range's bucket: hours up to two days, days up to a year and a half, months beyond. */
const intervalFor = (from: string, to: string): Interval => {
  const days = (Date.parse(to) - Date.parse(from)) / DAY + 1
  return days <= 2 ? 'hour' : days <= 540 ? 'day' : 'month'
}

/** The range a URL names; 30 days by default. */
export function rangeOf(query: URLSearchParams, now = new Date()): { preset: Preset; range: Range } {
  const preset = (PRESETS.find((p) => p.id === query.get('range'))?.id ?? '30d') as Preset
  if (preset === '24h') return { preset, range: { from: new Date(now.getTime() - DAY).toISOString(), interval: 'hour' } }
  if (preset === 'custom') {
    const from = query.get('from') || localDay(new Date(now.getTime() - 29 * DAY))
    const to = query.get('to') || localDay(now)
    return { preset, range: { from, to, interval: intervalFor(from, to) } }
  }
  const days = Number(preset.slice(0, -1))
  return { preset, range: { from: localDay(new Date(now.getTime() - (days - 1) * DAY)), to: localDay(now), interval: 'day' } }
}

const number = new Intl.NumberFormat()
const regionNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' })
  } catch {
    return null
  }
})()
/** `FR` → `France` (in the browser's language); anything else (`other`, `unknown`) as it is. */
export function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return code
  try {
    return regionNames?.of(code) ?? code
  } catch {
    return code
  }
}

export type Highlight = { section: string; value: string } | null

/** A breakdown: its top values as bars. A row can be picked to stand out (see docs: a highlight, not a filter). */
export function Bars(props: {
  title: string
  rows: Breakdown[]
  label?: (value: string) => string
  highlight: Highlight
  onPick: (h: Highlight) => void
  /** One level below the view's title. */
  heading: 'h2' | 'h3'
  children?: ComponentChildren
}) {
  const { title, rows, highlight, heading: Heading } = props
  const max = Math.max(1, ...rows.map((r) => r.clicks))
  const total = rows.reduce((sum, r) => sum + r.clicks, 0)
  return (
    <div class="card" data-breakdown={title}>
      <Heading class="breakdown-title">{title}</Heading>
      {props.children}
      {rows.length === 0 ? (
        <p class="muted">No visits yet.</p>
      ) : (
        <ul class="bars">
          {rows.map((r) => {
            const picked = highlight?.section === title && highlight.value === r.value
            return (
              <li key={r.value} class={picked ? 'picked' : undefined}>
                <button
                  type="button"
                  class="bar-row"
                  aria-pressed={picked}
                  data-value={r.value}
                  title={`${Math.round((r.clicks / Math.max(1, total)) * 100)}% of these clicks`}
                  onClick={() => props.onPick(picked ? null : { section: title, value: r.value })}
                >
                  <span class="bar-name">{props.label ? props.label(r.value) : r.value}</span>
                  <span class="bar-count">{number.format(r.clicks)}</span>
                  <span class="bar">
                    <span style={{ width: `${(r.clicks / max) * 100}%` }} />
                  </span>
                </button>
              </li>
            )
          })}
        </ul>
      )}
    </div>
  )
}

function TopLinks({ links }: { links: TopLink[] }) {
  return (
    <div class="card top-links" data-breakdown="Top links">
      <h3>Top links</h3>
      {links.length === 0 ? (
        <p class="muted">No visits yet.</p>
      ) : (
        <ol class="bars">
          {links.map((l) => (
            <li key={l.linkId}>
              <A to={`/links/${l.linkId}`} class="bar-row">
                <span class="bar-name">
                  {l.title ? <strong>{l.title}</strong> : null} <span class="muted">{`${l.domain}${l.path}`}</span>
                </span>
                <span class="bar-count">{number.format(l.clicks)}</span>
              </A>
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}

function RangePicker({ preset, range, error }: { preset: Preset; range: Range; error: unknown }) {
  const { set } = useQueryState()
  return (
    <div class="range-picker">
      <div class="segmented" role="group" aria-label="Range">
        {PRESETS.map((p) => (
          <button
            type="button"
            key={p.id}
            class={p.id === preset ? 'active' : undefined}
            aria-pressed={p.id === preset}
            onClick={() =>
              set(
                p.id === 'custom'
                  ? { range: 'custom', from: range.from.slice(0, 10), to: range.to ?? localDay(new Date()) }
                  : { range: p.id, from: null, to: null },
              )
            }
          >
            {p.label}
          </button>
        ))}
      </div>
      {preset === 'custom' ? (
        <div class="range-dates">
          <Field label="From" name="from" error={error}>
            <input type="date" value={range.from} max={range.to} onChange={(e) => set({ from: e.currentTarget.value })} />
          </Field>
          <Field label="To" name="to" error={error}>
            <input type="date" value={range.to} min={range.from} onChange={(e) => set({ to: e.currentTarget.value })} />
          </Field>
        </div>
      ) : null}
    </div>
  )
}

const BREAKDOWNS = [
  ['Referrers', 'referrers'],
  ['Browsers', 'browsers'],
  ['Operating systems', 'os'],
  ['Devices', 'devices'],
  ['Languages', 'languages'],
  ['UTM sources', 'utmSources'],
  ['UTM mediums', 'utmMediums'],
  ['UTM campaigns', 'utmCampaigns'],
  ['Cities', 'cities'],
] as const

/**
 * Totals, the time series, top links (for more than one link) and every breakdown of a scope, for the
 * range in the URL. `emptyHint` says what to do when nothing was clicked yet; `csv` offers the download.
 */
export function AnalyticsView(props: {
  scope: Scope
  emptyHint?: ComponentChildren
  csv?: boolean
  title?: string
  /** The title's level: 1 where it is the page's heading (a public page), else under the page's own. */
  level?: 1 | 2
  notFound?: ComponentChildren
}) {
  const { query } = useRoute()
  const { preset, range } = rangeOf(query)
  const key = `${JSON.stringify(props.scope)}|${preset}|${range.from.slice(0, 13)}|${range.to ?? ''}|${range.interval}`
  const [stats, setStats] = useState<AnalyticsStats | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(false)
  const [version, setVersion] = useState(0)
  const [highlight, setHighlight] = useState<Highlight>(null)
  useEffect(() => {
    let live = true
    setLoading(true)
    loadStats(props.scope, range)
      .then(
        (s) => live && (setStats(s), setError(null)),
        (e) => live && setError(e),
      )
      .finally(() => live && setLoading(false))
    return () => {
      live = false
    }
  }, [key, version])

  const totals = stats
    ? ([
        ['Total clicks', number.format(stats.totalClicks)],
        ['Human clicks', number.format(stats.humanClicks)],
        ['Bot clicks', number.format(stats.botClicks)],
        ['QR scans', number.format(stats.qrScans)],
        // A visitor is recognised for one UTC day, per link (docs/api/statistics.md#unique-visitors-and-privacy).
        ['Unique visitors', number.format(stats.uniqueVisitors), 'Counted per link and UTC day'],
      ] as const)
    : []
  if (props.notFound && error instanceof ApiError && error.status === 404) return <>{props.notFound}</>
  const [Heading, Subheading] = props.level === 1 ? (['h1', 'h2'] as const) : (['h2', 'h3'] as const)
  return (
    <div class="analytics">
      <div class="card">
        <div class="page-header">
          <Heading>{props.title ?? 'Statistics'}</Heading>
          <div class="actions">
            {props.csv ? (
              <a class="button" href={statsUrl(props.scope, range, 'csv')} download data-testid="csv">
                Download CSV
              </a>
            ) : null}
            <button type="button" onClick={() => setVersion(version + 1)} disabled={loading} data-testid="refresh">
              {loading ? 'Refreshing…' : 'Refresh'}
            </button>
          </div>
        </div>
        <RangePicker preset={preset} range={range} error={error} />
        <ErrorBox error={generalError(error, ['from', 'to'])} />
        {stats === null && error === null ? <Loading what="statistics" /> : null}
        {stats ? (
          <>
            <div class="totals">
              {totals.map(([name, value, hint]) => (
                <div class="total" key={name} data-total={name} title={hint}>
                  <div class="value">{value}</div>
                  <div class="name">{name}</div>
                </div>
              ))}
            </div>
            {stats.lastClickedAt ? <p class="muted small-print">Last click {new Date(stats.lastClickedAt).toLocaleString()}</p> : null}
            {stats.totalClicks === 0 ? <Empty>{props.emptyHint ?? 'No clicks in this range.'}</Empty> : <Chart stats={stats} />}
          </>
        ) : null}
      </div>
      {stats && stats.totalClicks > 0 ? (
        <div class="breakdowns">
          {stats.topLinks && (props.scope.kind === 'all' || props.scope.kind === 'tag' || props.scope.kind === 'domain') ? (
            <TopLinks links={stats.topLinks} />
          ) : null}
          <Bars title="Countries" rows={stats.countries} label={countryName} highlight={highlight} onPick={setHighlight} heading={Subheading}>
            <WorldMap rows={stats.countries} picked={highlight?.section === 'Countries' ? highlight.value : null} />
          </Bars>
          {BREAKDOWNS.map(([title, field]) => {
            const rows = stats[field]
            // Cities only with a city database (the server reports none without one).
            if (field === 'cities' && rows.length === 0) return null
            return <Bars key={field} title={title} rows={rows} highlight={highlight} onPick={setHighlight} heading={Subheading} />
          })}
        </div>
      ) : null}
    </div>
  )
}
