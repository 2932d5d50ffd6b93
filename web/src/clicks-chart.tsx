// The time series of a statistics view, drawn by uPlot on a canvas that follows its box's width.
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { AnalyticsStats, Interval } from './stats-api'

const number = new Intl.NumberFormat()

function bucketLabel(start: number, interval: Interval): string {
  const d = new Date(start * 1000)
  if (interval === 'hour') return d.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })
  if (interval === 'day') return d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
  return d.toLocaleDateString(undefined, { month: 'long', year: 'numeric' })
}

/** Clicks per bucket; hovering (or touching) it shows the bucket and its clicks below. */
export function Chart({ stats }: { stats: AnalyticsStats }) {
  const ref = useRef<HTMLDivElement>(null)
  const [hover, setHover] = useState<{ label: string; clicks: number } | null>(null)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const xs = stats.timeseries.map((p) => Date.parse(p.start) / 1000)
    const ys = stats.timeseries.map((p) => p.clicks)
    // The page's own colours (light or dark), read from its stylesheet: a canvas takes no CSS.
    const css = getComputedStyle(document.documentElement)
    const colour = (name: string) => css.getPropertyValue(name).trim()
    const blue = colour('--blue') || '#1f4f8f'
    const axis = { stroke: colour('--muted'), grid: { stroke: colour('--line') }, ticks: { stroke: colour('--line') } }
    const width = () => Math.max(240, el.clientWidth)
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
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
              setHover(i === null || i === undefined ? null : { label: bucketLabel(xs[i]!, stats.interval), clicks: ys[i] ?? 0 })
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
  }, [stats])
  return (
    <div class="chart-box">
      <div class="chart" ref={ref} role="img" aria-label={`Human clicks per ${stats.interval}`} />
      <p class="chart-readout" data-testid="chart-value" aria-live="polite">
        {hover ? (
          <>
            <span>{hover.label}</span> <strong>{number.format(hover.clicks)}</strong> {hover.clicks === 1 ? 'click' : 'clicks'}
          </>
        ) : (
          <span class="muted">Point at the chart to read a {stats.interval}’s clicks.</span>
        )}
      </p>
    </div>
  )
}
