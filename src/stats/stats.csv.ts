import { stringify } from 'csv-stringify/sync'
import type { FastifyReply } from 'fastify'
import { neutralizeCell } from '../shared/csv-cell.js'
import { errorResponses } from '../shared/schema.js'
import { DIMENSION_NAMES, DIMENSIONS, type BreakdownField } from './stats.dimensions.js'
import type { StatsFormat } from './stats.params.js'

/** The totals, in the order of their rows. */
const TOTALS = ['totalClicks', 'humanClicks', 'botClicks', 'qrScans', 'uniqueVisitors'] as const

/** What the CSV form of a statistics object reads: the totals, the breakdowns, the time series, and the overview's top links. */
export type CsvStatistics = Record<(typeof TOTALS)[number], number> &
  Record<BreakdownField, readonly { value: string; clicks: number }[]> & {
    timeseries: readonly { start: string; clicks: number }[]
    topLinks?: readonly { domain: string; path: string; clicks: number }[]
  }

/**
 * A statistics object as CSV (docs/api/analytics.md, "CSV"): a `section,value,clicks` header, the
 * totals (`totals,humanClicks,1200`), each breakdown under its field (`referrers,t.co,300`; every
 * dimension of DIMENSIONS, in its order), the overview's top links by short URL (`topLinks,go.example/sale,90`),
 * then the time series (`timeseries,2026-11-21T00:00:00.000Z,40`). RFC 4180 quoting and CRLF line ends,
 * as the exports; every cell neutralised against spreadsheet formulas (shared/csv-cell.ts).
 */
export function statisticsCsv(stats: CsvStatistics): string {
  const rows: (string | number)[][] = [['section', 'value', 'clicks']]
  for (const total of TOTALS) rows.push(['totals', total, stats[total]])
  for (const field of DIMENSION_NAMES.map((d) => DIMENSIONS[d].field)) for (const r of stats[field]) rows.push([field, r.value, r.clicks])
  for (const link of stats.topLinks ?? []) rows.push(['topLinks', `${link.domain}${link.path}`, link.clicks])
  for (const bucket of stats.timeseries) rows.push(['timeseries', bucket.start, bucket.clicks])
  return stringify(
    rows.map((row) => row.map((cell) => neutralizeCell(String(cell)))),
    { record_delimiter: 'windows' },
  )
}

/**
 * Answers a statistics object in the format asked for: the JSON envelope, or with `format=csv` a CSV
 * download named `<name>.csv` (`name` of letters, digits, `-` and `_` only: it goes in a header).
 */
export function replyStatistics<T extends CsvStatistics>(reply: FastifyReply, format: StatsFormat | undefined, data: T, name: string) {
  if (format !== 'csv') return { success: true as const, data }
  reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${name.replace(/[^\w-]/g, '_')}.csv"`)
  return statisticsCsv(data)
}

/** The responses of a statistics endpoint, for the OpenAPI document: JSON, or CSV with `format=csv`. */
export const statisticsResponses = (envelope: unknown, what: string) => ({
  200: {
    description: what,
    content: {
      'application/json': { schema: envelope },
      'text/csv': {
        schema: { type: 'string', description: 'With format=csv: section,value,clicks rows (totals, breakdowns, top links), then timeseries rows' },
      },
    },
  },
  ...errorResponses,
})
