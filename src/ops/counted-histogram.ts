import { Histogram, type Registry } from 'prom-client'

/**
 * An unlabelled histogram counted in a typed array, for the redirect's latency. Buys: an observation
 * is a few comparisons and an increment, where prom-client's `observe` builds a labels object and
 * formats the bucket's bound as a property key on every call (docs/performance.md, "The redirect
 * path"). prom-client still formats the series, so scrapes read it like any other histogram.
 */
export class CountedHistogram extends Histogram {
  readonly #name: string
  readonly #help: string
  readonly #bounds: readonly number[]
  /** Observations per bucket (not cumulative); the last is above every bound. */
  readonly #counts: Float64Array
  #sum = 0

  constructor(config: { name: string; help: string; buckets: readonly number[]; registers: Registry[] }) {
    super({ ...config, buckets: [...config.buckets] })
    this.#name = config.name
    this.#help = config.help
    this.#bounds = config.buckets
    this.#counts = new Float64Array(config.buckets.length + 1)
  }

  count(value: number): void {
    const bounds = this.#bounds
    let i = 0
    while (i < bounds.length && value > (bounds[i] as number)) i++
    ;(this.#counts[i] as number)++
    this.#sum += value
  }

  /**
   * What prom-client's registry (text format) and its `get` (JSON) read of a histogram: its method,
   * not in its typings; metrics.test.ts reads both formats.
   */
  async getForPromString() {
    let total = 0
    const series = (metricName: string, labels: Record<string, string | number>, value: number) => ({ metricName, labels, sharedLabels: {}, value })
    const values = [...this.#bounds, '+Inf'].map((le, i) => series(`${this.#name}_bucket`, { le }, (total += this.#counts[i] as number)))
    values.push(series(`${this.#name}_sum`, {}, this.#sum), series(`${this.#name}_count`, {}, total))
    return { name: this.#name, help: this.#help, type: 'histogram', values, aggregator: 'sum' }
  }
}
