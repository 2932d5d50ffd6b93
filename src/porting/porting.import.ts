import { createReadStream } from 'node:fs'
import { open, readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { parse, type CsvError } from 'csv-parse'
import { parse as parseSync } from 'csv-parse/sync'
import { CSV_MAPPERS, mapKutt, mapNdjson, normalizeHeader, RowError, type ImportFormat, type ImportRecord, type ImportRow } from './porting.peers.js'

export { IMPORT_FORMATS, type ImportFormat, type ImportRecord, type ImportRow } from './porting.peers.js'

/**
 * The file as a whole cannot be read in this format: a usage error of one line. `format` when
 * naming another format (or one at all) is the way out, else the file itself is the problem.
 */
export class ImportFileError extends Error {
  constructor(
    message: string,
    readonly concerns: 'format' | 'file' = 'file',
  ) {
    super(message)
  }
}

/** Where an import's bytes are: a file (the CLI) or a request's body, held in memory (the API). */
export type ImportSource = { file: string } | { bytes: Buffer }

/** How the caller names a format, for the hints of errors: `--format kutt` on the command line, `format=kutt` in a query. */
export type FormatOption = (format: ImportFormat | undefined) => string

/** Up to `length` bytes of the source from `position` (fewer at its end). */
async function readAt(source: ImportSource, position: number, length: number): Promise<Buffer> {
  if ('bytes' in source) return source.bytes.subarray(position, position + length)
  const handle = await open(source.file)
  try {
    const buffer = Buffer.alloc(length)
    const { bytesRead } = await handle.read(buffer, 0, length, position)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

const streamFrom = (source: ImportSource, start: number): Readable =>
  'bytes' in source ? Readable.from([source.bytes.subarray(start)], { objectMode: false }) : createReadStream(source.file, { start })

/** How much of the file's start is read to tell its format. */
const HEAD_BYTES = 64 * 1024
/** Formats told by their header, the most specific first (a Shlink file also has a column that Bitly's API export has). */
const SIGNATURES: [ImportFormat, (names: string[]) => boolean][] = [
  ['shlink', (n) => n.includes('shortcode') && n.includes('longurl')],
  ['bitly', (n) => n.includes('destinationurl') || (n.includes('longurl') && (n.includes('link') || n.includes('bitlink')))],
  ['yourls', (n) => n.includes('keyword') && n.includes('url')],
  ['csv', (n) => n.includes('destination')],
]

interface Head {
  /** The format the file's start shows, if any. */
  detected: ImportFormat | undefined
  /** The CSV header's names, normalized, and the bytes of its line; undefined for JSON. */
  header: { names: string[]; raw: string; bytes: number } | undefined
}

async function readHead(source: ImportSource): Promise<Head> {
  let bytes: Buffer
  try {
    bytes = await readAt(source, 0, HEAD_BYTES)
  } catch (error) {
    throw new ImportFileError(`cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  const bytesRead = bytes.length
  if (bytes.includes(0)) throw new ImportFileError('not a text file (it holds NUL bytes)')
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '')
  const start = text.trimStart()
  if (start === '') throw new ImportFileError('the file is empty')
  if (start.startsWith('{') || start.startsWith('[')) {
    // One link object per line is Linkline's NDJSON; any other JSON is taken for Kutt's answer.
    const line = start.slice(0, start.indexOf('\n') === -1 ? undefined : start.indexOf('\n'))
    return { detected: isNdjsonLine(line) ? 'ndjson' : 'kutt', header: undefined }
  }
  const end = text.indexOf('\n')
  const raw = (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '')
  let cells: string[]
  try {
    cells = (parseSync(raw, { relax_quotes: true }) as string[][])[0] ?? []
  } catch {
    cells = raw.split(',')
  }
  const names = cells.map(normalizeHeader)
  const bomBytes = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  return {
    detected: SIGNATURES.find(([, matches]) => matches(names))?.[0],
    header: { names, raw, bytes: end === -1 ? bytesRead : bomBytes + Buffer.byteLength(text.slice(0, end + 1)) },
  }
}

function isNdjsonLine(line: string): boolean {
  try {
    const parsed = JSON.parse(line) as unknown
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && typeof (parsed as { destination?: unknown }).destination === 'string'
  } catch {
    return false
  }
}

/** Why the file is not of `format` (undefined when it is), with the format it looks like when that is known. */
function mismatch(format: ImportFormat, head: Head, option: FormatOption): string | undefined {
  let problem: string | undefined
  if (format === 'kutt' || format === 'ndjson') problem = head.detected === format ? undefined : head.header ? 'it is CSV, not JSON' : 'it is not NDJSON'
  else if (head.header === undefined) problem = 'it is JSON, not CSV'
  else {
    const missing = CSV_MAPPERS[format].required.find((alternatives) => !alternatives.some((n) => head.header?.names.includes(n)))
    if (missing) problem = `no ${missing.join(' or ')} column in the header`
  }
  if (problem === undefined) return undefined
  const hint =
    head.detected === undefined
      ? head.header
        ? ` (${head.header.raw.slice(0, 120)})`
        : ''
      : `; it looks like a ${head.detected} file: use ${option(head.detected)}`
  return `not a ${format} file: ${problem}${hint}`
}

/** The CLI's way of naming a format. */
export const FORMAT_FLAG: FormatOption = (format) => (format === undefined ? '--format' : `--format ${format}`)

/**
 * An import file's format and its rows, one at a time. The format is the one named, or told from
 * the file's start when none is; a file that is not of the format named fails at once
 * (ImportFileError) before any row is read. CSV and NDJSON are streamed; a Kutt JSON file is read whole.
 */
export async function openImport(
  source: ImportSource,
  named: ImportFormat | undefined,
  options: { onBytes?: (bytes: number) => void; option?: FormatOption } = {},
): Promise<{ format: ImportFormat; rows: AsyncGenerator<ImportRow> }> {
  const option = options.option ?? FORMAT_FLAG
  const head = await readHead(source)
  const format = named ?? head.detected
  if (format === undefined)
    throw new ImportFileError(`cannot tell the format from the header (${head.header?.raw.slice(0, 120) ?? ''}): name it with ${option(undefined)}`, 'format')
  const problem = mismatch(format, head, option)
  if (problem !== undefined) throw new ImportFileError(problem, 'format')
  const rows =
    format === 'kutt'
      ? readKutt(source)
      : format === 'ndjson'
        ? readNdjson(source, options.onBytes)
        : readCsv(source, format, head.header?.bytes ?? 0, options.onBytes)
  return { format, rows }
}

/**
 * CSV rows. A quote that is never closed, or closed lines later by another row's quote, makes the
 * parser read the lines after it as one cell: that row is listed, and reading starts again on the
 * line after the one where it opened, so that only that line is lost.
 */
async function* readCsv(
  source: ImportSource,
  format: keyof typeof CSV_MAPPERS,
  headerBytes: number,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<ImportRow> {
  const mapper = CSV_MAPPERS[format]
  let columns: string[] | undefined
  let segment = { start: 0, lineBefore: 0 }
  let reported = 0
  for (;;) {
    const input = streamFrom(source, segment.start)
    let position = segment.start
    input.on('data', (chunk) => {
      position += chunk.length
      if (position > reported) onBytes?.(position - reported)
      reported = Math.max(reported, position)
    })
    const skipped: ImportRow[] = []
    // The end of the last record parsed (in this segment), and where a row spanning lines broke.
    let parsed = { lines: segment.start === 0 ? 1 : 0, bytes: segment.start === 0 ? headerBytes : 0 }
    let broken: { lines: number; bytes: number } | undefined
    const parser = input.pipe(
      parse({
        bom: segment.start === 0,
        columns: columns ?? ((header: string[]) => (columns = header.map(normalizeHeader))),
        relax_column_count: true,
        skip_empty_lines: true,
        skip_records_with_error: true,
        info: true,
        on_record: (record, context) => {
          if (broken === undefined) parsed = { lines: context.lines, bytes: context.bytes }
          return record
        },
        on_skip: (error: CsvError | undefined) => {
          if (error === undefined || broken !== undefined) return undefined
          const lines = (error as { lines?: number }).lines ?? 0
          if (error.code === 'CSV_QUOTE_NOT_CLOSED' || lines > parsed.lines + 1) broken = parsed
          else skipped.push({ where: `line ${segment.lineBefore + lines}`, error: csvReason(error) })
          return undefined
        },
      }),
    )
    input.on('error', (error) => parser.destroy(error))
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      while (skipped.length > 0) yield skipped.shift() as ImportRow
      if (broken !== undefined && info.lines > broken.lines) {
        input.destroy()
        break
      }
      // A record spans lines when a quoted cell holds newlines: name the line it starts on.
      yield { where: `line ${segment.lineBefore + info.lines - countNewlines(record)}`, ...mapRow(() => mapper.map(record)) }
    }
    yield* skipped
    if (broken === undefined) return
    const at = await lineAfter(source, segment.start + broken.bytes, segment.lineBefore + broken.lines)
    if (at === undefined) return
    yield { where: `line ${at.line}`, error: 'a quote opened on this line is never closed; read on from the next line' }
    segment = { start: at.next, lineBefore: at.line }
  }
}

const csvReason = (error: CsvError) =>
  error.message
    .replace(/^Invalid Record Length: /, '')
    .replace(/ at line \d+/, '')
    .replace(/ instead of delimiter.*$/, '')

/** The first non-empty line from byte `at` (its number, counted from `lineBefore`), and the byte offset after it; undefined at the end of the file. */
async function lineAfter(source: ImportSource, at: number, lineBefore: number): Promise<{ line: number; next: number } | undefined> {
  let line = lineBefore + 1
  let position = at
  let blank = true
  for (;;) {
    const buffer = await readAt(source, position, HEAD_BYTES)
    if (buffer.length === 0) return blank ? undefined : { line, next: position }
    for (let i = 0; i < buffer.length; i++) {
      const byte = buffer[i]
      if (byte !== 0x0a) {
        if (byte !== 0x0d) blank = false
        continue
      }
      if (!blank) return { line, next: position + i + 1 }
      line++
    }
    position += buffer.length
  }
}

const countNewlines = (row: Record<string, string>) => Object.values(row).reduce((n, v) => n + (v.match(/\n/g)?.length ?? 0), 0)

const mapRow = (map: () => ImportRecord): { record: ImportRecord } | { error: string } => {
  try {
    return { record: map() }
  } catch (error) {
    if (error instanceof RowError) return { error: error.message }
    throw error
  }
}

/** Linkline's NDJSON export: one link object per line. */
async function* readNdjson(source: ImportSource, onBytes?: (bytes: number) => void): AsyncGenerator<ImportRow> {
  const input = streamFrom(source, 0)
  if (onBytes) input.on('data', (chunk) => onBytes(chunk.length))
  let line = 0
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line++
    if (text.trim() === '') continue
    yield {
      where: `line ${line}`,
      ...mapRow(() => {
        let item: unknown
        try {
          item = JSON.parse(text)
        } catch {
          throw new RowError('not valid JSON')
        }
        return mapNdjson(item)
      }),
    }
  }
}

/**
 * Kutt has no export file: its API's `GET /api/v2/links` answer, saved (`{"data": [...]}`, or the
 * array alone), is the file.
 */
async function* readKutt(source: ImportSource): AsyncGenerator<ImportRow> {
  const content = 'bytes' in source ? source.bytes.toString('utf8') : await readFile(source.file, 'utf8')
  let parsed: unknown
  try {
    parsed = JSON.parse(content)
  } catch (error) {
    throw new ImportFileError(`not a kutt file: ${(error as Error).message}`)
  }
  const items = Array.isArray(parsed) ? parsed : (parsed as { data?: unknown } | null)?.data
  if (!Array.isArray(items)) throw new ImportFileError('not a kutt file: expected the JSON of GET /api/v2/links ({"data": [...]}) or an array of links')
  for (const [index, item] of items.entries()) yield { where: `item ${index + 1}`, ...mapRow(() => mapKutt(item)) }
}
