import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { parse, type CsvError } from 'csv-parse'

export const IMPORT_FORMATS = ['csv', 'bitly', 'shlink', 'kutt', 'yourls'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** One link read from an import file, before any check of the links service. */
export interface ImportRecord {
  destination: string
  /** With its leading slash. */
  path?: string
  domain?: string
  /**
   * The host the link had on the service it comes from (bit.ly, s.test): kept when it is a domain of
   * the owner here (a branded domain brought along), else the link goes to the default domain.
   */
  domainHint?: string
  title?: string
  tags: string[]
}

/** A row of the file: its line (or, in a JSON file, its item number) and the record, or why it could not be read. */
export type ImportRow = { where: string; record: ImportRecord } | { where: string; error: string }

/** Column names as written by people and other services: `Long URL`, `long_url` and `longUrl` are one. */
const normalizeHeader = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '')

const text = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}

/** Tags written `a|b` (Shlink, Linkline's own export) or `a,b`. */
const splitTags = (value: unknown): string[] => {
  const raw = text(value)
  if (raw === undefined) return []
  return raw
    .split(raw.includes('|') ? '|' : ',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
}

const withSlash = (path: string | undefined) => (path === undefined || path.startsWith('/') ? path : `/${path}`)

/** A short URL of another service (`bit.ly/3abc`, `https://go.acme.com/sale`) as its host and path. */
function shortUrlParts(value: unknown): { domainHint?: string; path?: string } {
  const raw = text(value)
  if (raw === undefined) return {}
  const url = URL.canParse(raw) ? new URL(raw) : URL.canParse(`https://${raw}`) ? new URL(`https://${raw}`) : undefined
  if (url === undefined || url.pathname === '/') return {}
  return { domainHint: url.host, path: decodeURIComponent(url.pathname) }
}

type Row = Record<string, string>
const first = (row: Row, ...names: string[]) => names.map((n) => text(row[n])).find((v) => v !== undefined)

/**
 * How each CSV format's columns (normalized by normalizeHeader) map to a record; `undefined` fields
 * are left to Linkline's defaults. Whatever else the file holds (dates, visit counts, IPs) is dropped.
 */
const CSV_MAPPERS: Record<Exclude<ImportFormat, 'kutt'>, { required: string[][]; map: (row: Row) => ImportRecord }> = {
  // destination,path,domain,title,tags; Linkline's own export has these columns too (and more, ignored).
  csv: {
    required: [['destination']],
    map: (row) => ({
      destination: row.destination ?? '',
      path: withSlash(text(row.path)),
      domain: text(row.domain),
      title: text(row.title),
      tags: splitTags(row.tags),
    }),
  },
  // Bitly's link export: Link (bit.ly/…), Custom Link (a branded back-half), Destination URL (or
  // long_url in the API's links_list export), Title, Tags.
  bitly: {
    required: [['destinationurl', 'longurl']],
    map: (row) => {
      const custom = first(row, 'customlink', 'customlinks', 'custombitlinks', 'custombitlink')?.split(/[,|\s]+/)[0]
      const short = shortUrlParts(custom ?? first(row, 'link', 'bitlink', 'shortlink'))
      return { destination: first(row, 'destinationurl', 'longurl') ?? '', ...short, title: text(row.title), tags: splitTags(row.tags) }
    },
  },
  // Shlink's web client export (short_urls.csv): createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits.
  shlink: {
    required: [['longurl']],
    map: (row) => {
      const short = shortUrlParts(row.shorturl)
      const code = text(row.shortcode)
      return {
        destination: row.longurl ?? '',
        path: code === undefined ? short.path : withSlash(code),
        domainHint: text(row.domain) ?? short.domainHint,
        title: text(row.title),
        tags: splitTags(row.tags),
      }
    },
  },
  // YOURLS' yourls_url table as its export plugins and database tools write it: keyword,url,title,timestamp,ip,clicks.
  yourls: {
    required: [['keyword'], ['url']],
    map: (row) => ({ destination: row.url ?? '', path: withSlash(text(row.keyword)), title: text(row.title), tags: [] }),
  },
}

/** The rows of an import file, one at a time (CSV is streamed; a Kutt JSON file is read whole). */
export async function* readImport(file: string, format: ImportFormat, onBytes?: (bytes: number) => void): AsyncGenerator<ImportRow> {
  if (format === 'kutt') {
    yield* readKutt(await readFile(file, 'utf8'))
    return
  }
  const mapper = CSV_MAPPERS[format]
  const input: Readable = createReadStream(file)
  if (onBytes) input.on('data', (chunk) => onBytes(chunk.length))
  const skipped: ImportRow[] = []
  const parser = input.pipe(
    parse({
      bom: true,
      columns: (header: string[]) => {
        const names = header.map(normalizeHeader)
        const missing = mapper.required.find((alternatives) => !alternatives.some((n) => names.includes(n)))
        if (missing) throw new ImportFileError(`not a ${format} file: no ${missing.join(' or ')} column in the header (${header.join(',')})`)
        return names
      },
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      info: true,
      on_skip: (error: CsvError | undefined) => {
        if (error) skipped.push({ where: `line ${error.lines}`, error: error.message.replace(/^Invalid Record Length: /, '').replace(/ at line \d+/, '') })
        return undefined
      },
    }),
  )
  input.on('error', (error) => parser.destroy(error))
  for await (const { record, info } of parser as AsyncIterable<{ record: Row; info: { lines: number } }>) {
    while (skipped.length > 0) yield skipped.shift() as ImportRow
    // A record spans lines when a quoted cell holds newlines: name the line it starts on.
    yield { where: `line ${info.lines - countNewlines(record)}`, record: mapper.map(record) }
  }
  yield* skipped
}

const countNewlines = (row: Row) => Object.values(row).reduce((n, v) => n + (v.match(/\n/g)?.length ?? 0), 0)

/**
 * Kutt has no export file: its API's `GET /api/v2/links` answer, saved (`{"data": [...]}`, or the
 * array alone), is the file. target → destination, address → path, domain → domain, description → title.
 */
function* readKutt(content: string): Generator<ImportRow> {
  let parsed: unknown
  try {
    parsed = JSON.parse(content)
  } catch (error) {
    throw new ImportFileError(`not a kutt file: ${(error as Error).message}`)
  }
  const items = Array.isArray(parsed) ? parsed : (parsed as { data?: unknown } | null)?.data
  if (!Array.isArray(items)) throw new ImportFileError('not a kutt file: expected the JSON of GET /api/v2/links ({"data": [...]}) or an array of links')
  for (const [index, item] of items.entries()) {
    const where = `item ${index + 1}`
    if (typeof item !== 'object' || item === null) {
      yield { where, error: 'not a link object' }
      continue
    }
    const link = item as Record<string, unknown>
    if (typeof link.target !== 'string') {
      yield { where, error: 'no target' }
      continue
    }
    yield {
      where,
      record: { destination: link.target, path: withSlash(text(link.address)), domainHint: text(link.domain), title: text(link.description), tags: [] },
    }
  }
}

/** The file as a whole cannot be read in this format. */
export class ImportFileError extends Error {}
