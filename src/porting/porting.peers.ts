import { restoreCell } from '../shared/csv-cell.js'

export const IMPORT_FORMATS = ['csv', 'ndjson', 'bitly', 'shlink', 'kutt', 'yourls'] as const
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
  /**
   * When domainHint is not the owner's here: the paths to try on the default domain instead, in turn,
   * each when the one before is taken (Bitly: its own code, then the branded back-half).
   */
  pathsElsewhere?: string[]
  title?: string
  tags: string[]
  /** Linkline's own controls (redirectType, expiresAt, maxClicks, expiredUrl, rules, publicStats, preview), checked by the body schema later. */
  controls?: Record<string, unknown>
  /** A password hash in Linkline's own format, stored as it is. */
  passwordHash?: string
}

/** A row of the file: its line (or, in a JSON file, its item number) and the record, or why it could not be read. */
export type ImportRow = { where: string; record: ImportRecord } | { where: string; error: string }

/** A row that cannot become a link; the reason is listed with its line. */
export class RowError extends Error {}

/** Column names as written by people and other services: `Long URL`, `long_url` and `longUrl` are one. */
export const normalizeHeader = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '')

const text = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}

/**
 * Tags: a JSON array (Linkline's export writes one when a tag holds `|` or `,`, or when there is no
 * other way to keep them exact), else split on `|` (Shlink, Linkline) or `,`.
 */
const readTags = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.map(String)
  const raw = text(value)
  if (raw === undefined) return []
  if (raw.startsWith('[')) {
    const parsed = tryJson(raw)
    if (Array.isArray(parsed) && parsed.every((t) => typeof t === 'string')) return parsed
  }
  return raw
    .split(raw.includes('|') ? '|' : ',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
}

function tryJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

function parseJson(raw: string, field: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    throw new RowError(`${field} is not valid JSON`)
  }
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

type Row = Record<string, unknown>
const first = (row: Row, ...names: string[]) => names.map((n) => text(row[n])).find((v) => v !== undefined)

/** An integer cell (`301`) or JSON number; anything else is left for the schema to refuse with its message. */
const integer = (value: unknown) => (typeof value !== 'string' ? value : /^\d{1,16}$/.test(value.trim()) ? Number(value) : text(value))
/** A boolean cell (`true`, `false`) or JSON boolean; anything else is left for the schema to refuse. */
const boolean = (value: unknown) => (typeof value !== 'string' ? value : value.trim() === 'true' ? true : value.trim() === 'false' ? false : text(value))
const jsonCell = (value: unknown, field: string) => (typeof value === 'string' ? (text(value) === undefined ? undefined : parseJson(value, field)) : value)

/**
 * Linkline's own fields, from a CSV row (every value a string, restored from the export's formula
 * escape) or an NDJSON object (typed values). Empty cells leave the field to Linkline's defaults.
 */
function linkline(row: Row): ImportRecord {
  const controls: Record<string, unknown> = {
    redirectType: integer(row.redirecttype),
    expiresAt: text(row.expiresat),
    maxClicks: integer(row.maxclicks),
    expiredUrl: text(row.expiredurl),
    rules: jsonCell(row.rules, 'rules'),
    publicStats: boolean(row.publicstats),
    preview: jsonCell(row.preview, 'preview'),
  }
  for (const key of Object.keys(controls)) if (controls[key] === undefined || controls[key] === null) delete controls[key]
  const passwordHash = text(row.passwordhash)
  if (passwordHash === undefined && (row.haspassword === true || row.haspassword === 'true'))
    throw new RowError('the link is password-protected but the file has no passwordHash for it: it would be open here')
  const title = typeof row.title === 'string' && row.title !== '' ? row.title : undefined
  return {
    destination: typeof row.destination === 'string' ? row.destination.trim() : '',
    path: withSlash(text(row.path)),
    domain: text(row.domain),
    title,
    tags: readTags(row.tags),
    ...(Object.keys(controls).length > 0 && { controls }),
    ...(passwordHash !== undefined && { passwordHash }),
  }
}

/** A CSV row of Linkline's format: each cell first loses the quote that the export's formula escape added. */
const linklineCsv = (row: Row) => linkline(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' ? restoreCell(v) : v])))

/** How each CSV format's columns (normalized by normalizeHeader) map to a record. Whatever else the file holds (dates, visit counts, IPs) is dropped. */
export const CSV_MAPPERS: Record<Exclude<ImportFormat, 'kutt' | 'ndjson'>, { required: string[][]; map: (row: Row) => ImportRecord }> = {
  // destination,path,domain,title,tags, and Linkline's own export (every column of the link object).
  csv: { required: [['destination']], map: linklineCsv },
  // Bitly's link export: Link (bit.ly/…), Custom Link (a branded back-half), Destination URL (or
  // long_url in the API's links_list export), Title, Tags. The branded link is kept where its domain is
  // the owner's here; otherwise Bitly's own code is the path, and the branded back-half the fallback.
  bitly: {
    required: [['destinationurl', 'longurl']],
    map: (row) => {
      const custom = first(row, 'customlink', 'customlinks', 'custombitlinks', 'custombitlink')?.split(/[,|\s]+/)[0]
      const own = shortUrlParts(first(row, 'link', 'bitlink', 'shortlink'))
      const branded = shortUrlParts(custom)
      const base = { destination: first(row, 'destinationurl', 'longurl') ?? '', title: text(row.title), tags: readTags(row.tags) }
      if (branded.path === undefined) return { ...base, ...own }
      if (own.path === undefined) return { ...base, ...branded }
      return { ...base, ...branded, pathsElsewhere: [own.path, branded.path] }
    },
  },
  // Shlink's web client export (short_urls.csv): createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits.
  shlink: {
    required: [['longurl']],
    map: (row) => {
      const short = shortUrlParts(row.shorturl)
      const code = text(row.shortcode)
      return {
        destination: text(row.longurl) ?? '',
        path: code === undefined ? short.path : withSlash(code),
        domainHint: text(row.domain) ?? short.domainHint,
        title: text(row.title),
        tags: readTags(row.tags),
      }
    },
  },
  // YOURLS' yourls_url table as its export plugins and database tools write it: keyword,url,title,timestamp,ip,clicks.
  yourls: {
    required: [['keyword'], ['url']],
    map: (row) => ({ destination: text(row.url) ?? '', path: withSlash(text(row.keyword)), title: text(row.title), tags: [] }),
  },
}

/** A line of Linkline's NDJSON export. */
export function mapNdjson(item: unknown): ImportRecord {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new RowError('not a link object')
  return linkline(Object.fromEntries(Object.entries(item).map(([k, v]) => [normalizeHeader(k), v])))
}

/**
 * An item of Kutt's `GET /api/v2/links` answer: target → destination, address → path, domain →
 * domain, description → title, expire_in → expiresAt. A password-protected link is refused: Kutt
 * never gives out its password, and the link must not come in open.
 */
export function mapKutt(item: unknown): ImportRecord {
  if (typeof item !== 'object' || item === null) throw new RowError('not a link object')
  const link = item as Record<string, unknown>
  if (typeof link.target !== 'string') throw new RowError('no target')
  if (link.password !== undefined && link.password !== null && link.password !== false)
    throw new RowError('password-protected in Kutt, which does not export passwords: not imported, so that it does not come in open')
  const expiresAt = text(link.expire_in)
  return {
    destination: link.target,
    path: withSlash(text(link.address)),
    domainHint: text(link.domain),
    title: text(link.description),
    tags: [],
    ...(expiresAt !== undefined && { controls: { expiresAt } }),
  }
}
