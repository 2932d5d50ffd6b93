import { pipeline, Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import { LinkObject } from '../links/links.schemas.js'
import { neutralizeCell } from '../shared/csv-cell.js'
import type { ExportedClick } from '../stats/stats.service.js'

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
}

/**
 * The columns of the links export: the link object's fields, in the order of its schema (a field
 * added to LinkObject becomes a column without a change here) but `createdBy` (links.service.ts
 * ExportedLink), then the password hash, which the link object never shows but an import needs to
 * restore a protected link as it was.
 */
export const LINK_CSV_COLUMNS: readonly string[] = [...Object.keys(LinkObject.properties).filter((field) => field !== 'createdBy'), 'passwordHash']

/** The columns of the clicks export, in both formats: those added since the first eight come after them. */
export const CLICK_COLUMNS = [
  'time',
  'referrer',
  'browser',
  'os',
  'device',
  'country',
  'qr',
  'bot',
  'language',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'city',
] as const

/** A visit as exported: ISO time, booleans for the QR and bot flags, null where nothing was known. */
export const clickRecord = (c: ExportedClick) => ({
  time: new Date(c.clickedAt).toISOString(),
  referrer: c.referrer,
  browser: c.browser,
  os: c.os,
  device: c.device,
  country: c.country,
  qr: c.isQr,
  bot: c.isBot,
  language: c.language,
  utmSource: c.utmSource,
  utmMedium: c.utmMedium,
  utmCampaign: c.utmCampaign,
  city: c.city,
})

/**
 * One CSV cell's text: empty for null, text as is, lists of text joined with `|` (tags; the importer
 * splits them again) when that reads back exactly, any other structure (and such a list when it
 * would not: a tag holding `|` or `,`, or with spaces around it) as JSON.
 */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '' && v === v.trim() && !/[|,]/.test(v)) && !value.join('|').startsWith('['))
    return value.join('|')
  return JSON.stringify(value)
}

/**
 * Streams records as CSV (a header row, RFC 4180 quoting, CRLF line ends) or NDJSON (one JSON object
 * per line). Pulled by the consumer: the source is read only as fast as the output drains.
 */
export function encode(format: ExportFormat, columns: readonly string[], source: AsyncIterable<Record<string, unknown>>): Readable {
  if (format === 'ndjson') {
    return Readable.from(
      (async function* () {
        for await (const record of source) yield `${JSON.stringify(record)}\n`
      })(),
    )
  }
  const rows = Readable.from(
    (async function* () {
      for await (const record of source) yield columns.map((c) => neutralizeCell(cellText(record[c])))
    })(),
  )
  const csv = stringify({ header: true, columns: [...columns], record_delimiter: 'windows' })
  // Either side's end ends both: a client gone (the response destroys `csv`) stops the reads too.
  pipeline(rows, csv, () => {})
  return csv
}
