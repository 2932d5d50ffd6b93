// The time series of a statistics view, drawn by uPlot on a canvas that follows its box's width.
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { AnalyticsStats, Interval } from './stats-api'

const number = new Intl.NumberFormat()

/** A bucket's start as a date (or an hour) of the zone the statistics were counted in. */
function bucketLabel(start: number, interval: Interval, timeZone: string): string {
  const d = new Date(start * 1000)
  if (interval === 'hour')
    return d.toLocaleString(undefined, { timeZone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })
  if (interval === 'day') return d.toLocaleDateString(undefined, { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
  return d.toLocaleDateString(undefined, { timeZone, month: 'long', year: 'numeric' })
}

const DARK = '(prefers-color-scheme: dark)'
/** Whether the page is dark now; it follows the system's setting while the page is open. */
function useDark(): boolean {
  const [dark, setDark] = useState(() => matchMedia(DARK).matches)
  useEffect(() => {
    const query = matchMedia(DARK)
    const change = () => setDark(query.matches)
    query.addEventListener('change', change)
    return () => query.removeEventListener('change', change)
  }, [])
  return dark
}

/** Clicks per bucket; hovering (or touching) it shows the bucket and its clicks below. */
export function Chart({ stats }: { stats: AnalyticsStats }) {
  const ref = useRef<HTMLDivElement>(null)
  const [hover, setHover] = useState<{ label: string; clicks: number } | null>(null)
  const dark = useDark()
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const xs = stats.timeseries.map((p) => Date.parse(p.start) / 1000)
    const ys = stats.timeseries.map((p) => p.clicks)
    // The page's own colours (light or dark), read from its stylesheet: a canvas takes no CSS. Drawn
    // again when the system switches between light and dark.
    const css = getComputedStyle(document.documentElement)
    const colour = (name: string) => css.getPropertyValue(name).trim()
    const blue = colour('--blue') || '#1f4f8f'
    const line = colour('--line')
    const axis = { stroke: colour('--text'), grid: { stroke: line }, ticks: { stroke: line } }
    const width = () => Math.max(240, el.clientWidth)
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
        // The axis in the zone the server counted the days in (the browser's, UTC when it names none).
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), stats.tz),
        cursor: { y: false, points: { size: 8 } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] } },
        axes: [{ ...axis }, { ...axis, size: 44 }],
        series: [
          {},
          {
            label: 'Clicks',
            stroke: blue,
            fill: `${blue}22`,
            width: 2,
            points: { show: ys.length < 60 },
          },
        ],
        hooks: {
          setCursor: [
            (u) => {
              const i = u.cursor.idx
              setHover(i === null || i === undefined ? null : { label: bucketLabel(xs[i]!, stats.interval, stats.tz), clicks: ys[i] ?? 0 })
            },
          ],
        },
      },
      [xs, ys],
      el,
    )
    // The chart follows its box (a phone turned, a sidebar gone), not just the window.
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }))
    observer.observe(el)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [stats, dark])
  const zone = stats.tz === 'UTC' ? 'UTC' : `the ${stats.tz} time zone`
  return (
    <div class="chart-box">
      <div class="chart" ref={ref} role="img" aria-label={`Human clicks per ${stats.interval}, in ${zone}`} />
      <p class="chart-readout" data-testid="chart-value" aria-live="polite">
        {hover ? (
          <>
            <span>{hover.label}</span> <strong>{number.format(hover.clicks)}</strong> {hover.clicks === 1 ? 'click' : 'clicks'}
          </>
        ) : (
          <span class="muted">
            Point at the chart to read a {stats.interval}’s clicks ({stats.interval === 'hour' ? 'times' : `${stats.interval}s`} in {zone}).
          </span>
        )}
      </p>
    </div>
  )
}
