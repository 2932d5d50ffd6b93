import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { test } from 'node:test'
import { createMetrics } from './metrics.js'

test('the redirect latency histogram counts each redirect in its bucket, cumulatively, in both of prom-client’s formats', async (t) => {
  const metrics = createMetrics()
  // The clock stands still: a real one moves on between a start and its observation, by a millisecond
  // or more on a loaded host, which moved the 0.2 ms and 0.7 ms latencies into the 2.5 ms bucket.
  const now = 1_000_000
  t.mock.method(performance, 'now', () => now)
  // Latencies of 0.2 ms, 0.7 ms, 0.7 ms, 3 ms and 5 s (above every bound).
  for (const ms of [0.2, 0.7, 0.7, 3, 5000]) metrics.observeRedirect('found', now - ms)
  t.mock.restoreAll()
  const text = await metrics.registry.metrics()
  const sample = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `))
    assert.ok(line !== undefined, `${series} is exposed`)
    return Number(line.slice(series.length + 1))
  }
  const bucket = (le: string) => sample(`linkline_redirect_duration_seconds_bucket{le="${le}"}`)
  assert.match(text, /# TYPE linkline_redirect_duration_seconds histogram/)
  assert.deepEqual(['0.0005', '0.001', '0.0025', '0.005', '0.01', '2.5', '+Inf'].map(bucket), [1, 3, 3, 4, 4, 4, 5])
  assert.equal(sample('linkline_redirect_duration_seconds_count'), 5)
  assert.ok(Math.abs(sample('linkline_redirect_duration_seconds_sum') - 5.0046) < 1e-9)
  const json = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'linkline_redirect_duration_seconds')
  assert.equal(json?.type, 'histogram')
  assert.deepEqual(
    json?.values.filter((v) => 'metricName' in v && v.metricName === 'linkline_redirect_duration_seconds_bucket').map((v) => [v.labels.le, v.value]),
    [
      [0.0005, 1],
      [0.001, 3],
      [0.0025, 3],
      [0.005, 4],
      [0.01, 4],
      [0.025, 4],
      [0.05, 4],
      [0.1, 4],
      [0.25, 4],
      [0.5, 4],
      [1, 4],
      [2.5, 4],
      ['+Inf', 5],
    ],
  )
})

test('the event-loop lag of an idle process reads near zero, not the sampling interval', async () => {
  const metrics = createMetrics()
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const text = await metrics.registry.metrics()
  const sample = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
  // Sampled every 100 ms: before, an idle loop read about 0.1 s. A loaded machine may delay a tick a
  // little, never by half the interval at the median.
  assert.ok(sample('nodejs_eventloop_lag_p50_seconds') < 0.05, text)
  assert.ok(sample('nodejs_eventloop_lag_min_seconds') < 0.05, text)
})
