import { useEffect, useRef, useState } from 'preact/hooks'
import { call, client, withQuery, type operations } from '../api'
import { asyncHandler, ErrorBox, Field, generalError } from '../ui'
import './import-export.css'

type ImportOperation = operations['postLinksImport']
type Format = NonNullable<NonNullable<ImportOperation['parameters']['query']>['format']>
type Answer = ImportOperation['responses'][200]['content']['application/json']['data']
type RowResult = Answer['results'][number]

/** The API's limit on an import file (docs/api/export-import.md): larger files go through the CLI, which streams them. */
const MAX_BYTES = 5 * 1024 * 1024
/** Rows listed at most; past it, only the refused ones are. */
const MAX_ROWS = 500

const FORMATS: Record<Format, string> = {
  csv: 'Linkline CSV, or any CSV with a destination column',
  ndjson: 'Linkline NDJSON',
  bitly: 'Bitly link export (CSV)',
  shlink: 'Shlink short URL export (CSV)',
  kutt: 'Kutt API answer (JSON)',
  yourls: 'YOURLS links table (CSV)',
}

const size = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`)
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

function outcomeLabel(row: RowResult, dryRun: boolean): string {
  if (row.status === 'failed') return 'refused'
  if (row.status === 'skipped') return 'skipped'
  return dryRun ? 'would create' : 'created'
}

function RowDetail({ row }: { row: RowResult }) {
  if (row.error) return <span class="import-reason">{row.error.message}</span>
  if (row.link) {
    return (
      <span>
        <span class="wrap-anywhere">{row.link.destination}</span>
        {row.status === 'skipped' ? <span class="muted"> · already there</span> : null}
      </span>
    )
  }
  return <span class="muted">{row.path === null ? 'a random path' : 'not written yet'}</span>
}

/** What a preview or an import found: the counts, the links moved to another domain, one row per line. */
function Outcome({ answer, fileName, heading }: { answer: Answer; fileName: string; heading: { current: HTMLHeadingElement | null } }) {
  const { dryRun } = answer
  const many = answer.results.length > MAX_ROWS
  const rows = many ? answer.results.filter((r) => r.status === 'failed').slice(0, MAX_ROWS) : answer.results
  return (
    <div class="import-outcome" data-testid="import-outcome">
      <h3 tabIndex={-1} ref={heading}>
        {dryRun ? 'Preview' : 'Imported'}: {fileName}
      </h3>
      <p role="status" class="import-counts">
        <span class="count created" data-testid="count-created">
          <strong>{answer.created.toLocaleString()}</strong> {dryRun ? 'would be created' : 'created'}
        </span>
        <span class="count skipped" data-testid="count-skipped">
          <strong>{answer.skipped.toLocaleString()}</strong> skipped (already there)
        </span>
        <span class={answer.failed > 0 ? 'count failed' : 'count'} data-testid="count-failed">
          <strong>{answer.failed.toLocaleString()}</strong> refused
        </span>
      </p>
      <p class="muted small-print">
        Read as {FORMATS[answer.format]}. {dryRun ? 'Nothing was written: Import creates these links.' : 'Importing the same file again skips what is there.'}
      </p>
      {answer.moved.map((m) => (
        <p class="small-print" key={`${m.from} ${m.to}`}>
          {plural(m.links, 'link')} of {m.from} (not a domain of this workspace) {dryRun ? 'would go' : 'went'} to {m.to}.
        </p>
      ))}
      {many ? (
        <p class="small-print">
          {plural(answer.results.length, 'row')}:{' '}
          {answer.failed === 0 ? 'none was refused.' : `the refused ones are listed${answer.failed > MAX_ROWS ? ` (the first ${MAX_ROWS})` : ''}.`}
        </p>
      ) : null}
      {rows.length > 0 ? (
        <div class="table-wrap">
          <table class="cards import-rows">
            <thead>
              <tr>
                <th>Line</th>
                <th>Outcome</th>
                <th>Path</th>
                <th>Details</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.line} data-line={row.line} data-status={row.status}>
                  <td data-label="Line" class="nowrap">
                    <span>{row.line}</span>
                  </td>
                  <td data-label="Outcome">
                    <span class={`tag ${row.status}`}>{outcomeLabel(row, dryRun)}</span>
                  </td>
                  <td data-label="Path" class="wrap-anywhere">
                    <span>{row.link ? row.link.shortUrl : (row.path ?? '—')}</span>
                  </td>
                  <td data-label="Details" class="wrap-anywhere">
                    <RowDetail row={row} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  )
}

/** Choose a file (or drop one), check it with a dry run, then import it. */
function ImportCard() {
  const [file, setFile] = useState<File | null>(null)
  const [format, setFormat] = useState<Format | ''>('')
  const [running, setRunning] = useState<'preview' | 'import' | null>(null)
  const [answer, setAnswer] = useState<Answer | null>(null)
  const [detected, setDetected] = useState<Format | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [dragging, setDragging] = useState(false)
  const heading = useRef<HTMLHeadingElement>(null)
  const input = useRef<HTMLInputElement>(null)
  const tooLarge = file !== null && file.size > MAX_BYTES

  // The outcome takes the focus once drawn, so that it is read first.
  useEffect(() => heading.current?.focus(), [answer])

  const choose = (chosen: File | null) => {
    setFile(chosen)
    setFormat('')
    setDetected(null)
    setAnswer(null)
    setError(null)
  }
  const run = async (dryRun: boolean) => {
    if (file === null || tooLarge) return
    setRunning(dryRun ? 'preview' : 'import')
    setError(null)
    try {
      const text = await file.text()
      const data = await call(
        client.POST('/v1/links/import', {
          params: { query: { ...(format === '' ? {} : { format }), dryRun } },
          body: text,
          // The file's text as it is: the server reads every format from text, never as parsed JSON.
          bodySerializer: (body: string) => body,
          headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        }),
      )
      setAnswer(data.data)
      if (format === '') setDetected(data.data.format)
    } catch (e) {
      setAnswer(null)
      setError(e)
    } finally {
      setRunning(null)
    }
  }
  const drop = (event: DragEvent) => {
    event.preventDefault()
    setDragging(false)
    const files = event.dataTransfer?.files
    if (!files?.[0]) return
    // The file control then names the dropped file too, as if it had been chosen there.
    if (input.current) input.current.files = files
    choose(files[0])
  }
  // Import once this file, in this format, was checked: what it will do has been shown.
  const checked = answer !== null

  return (
    <section class="card import-card" aria-labelledby="import-title">
      <h2 id="import-title">Import links</h2>
      <p class="small-print muted">
        From Linkline's own export, a CSV with a <code>destination</code> column (and optionally <code>path</code>, <code>domain</code>, <code>title</code>,{' '}
        <code>tags</code>), or the export files of Bitly, Shlink, Kutt and YOURLS. Every row is checked as a new link is; a bad row is refused alone, with its
        line. Links already here are skipped, so a file can be imported again safely.
      </p>
      <div
        class={dragging ? 'drop-zone dragging' : 'drop-zone'}
        data-testid="drop-zone"
        onDragOver={(e) => {
          e.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <Field
          label="File"
          name="file"
          error={null}
          problem={
            tooLarge ? `This file is ${size(file.size)}: the dashboard takes up to 5 MiB. Import larger files with the command line (below).` : undefined
          }
        >
          <input
            type="file"
            ref={input}
            accept=".csv,.json,.ndjson,.txt,text/csv,application/json"
            onChange={(e) => choose((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
          />
        </Field>
        <p class="muted small-print drop-hint">{file ? `${file.name}, ${size(file.size)}` : 'or drop a file here'}</p>
      </div>
      <div class="import-controls">
        <Field label="Format" name="format" error={error}>
          <select
            value={format}
            onChange={(e) => {
              setFormat((e.currentTarget as HTMLSelectElement).value as Format | '')
              setAnswer(null)
              setError(null)
            }}
          >
            <option value="">{detected ? `Detected: ${FORMATS[detected]}` : 'Detect from the file'}</option>
            {(Object.keys(FORMATS) as Format[]).map((f) => (
              <option key={f} value={f}>
                {FORMATS[f]}
              </option>
            ))}
          </select>
        </Field>
        <div class="actions">
          <button type="button" onClick={asyncHandler(() => run(true))} disabled={file === null || tooLarge || running !== null}>
            Preview
          </button>
          <button type="button" class="primary" onClick={asyncHandler(() => run(false))} disabled={!checked || running !== null}>
            Import
          </button>
        </div>
      </div>
      {running ? (
        <div class="import-progress" role="status">
          <progress aria-label={running === 'preview' ? 'Checking the file' : 'Importing'} />
          <span>{running === 'preview' ? 'Checking every row…' : 'Importing…'}</span>
        </div>
      ) : null}
      <ErrorBox error={generalError(error, ['format'])} />
      {answer && file && !running ? <Outcome answer={answer} fileName={file.name} heading={heading} /> : null}
      <p class="small-print muted">
        Files over 5 MiB: <code>linkline links import &lt;file&gt; --owner &lt;workspace id&gt;</code> on the server reads them in the same way.
      </p>
    </section>
  )
}

/** The whole workspace's links as a file, and where each link's visits are exported. */
function ExportCard() {
  return (
    <section class="card export-card" aria-labelledby="export-title">
      <h2 id="export-title">Export links</h2>
      <p class="small-print muted">
        Every link of this workspace with all its settings (redirect type, expiry, click limit, rules, tags, and a protected link's password hash), in a file
        that imports back here or into another Linkline. Keep it as you keep a backup.
      </p>
      <div class="actions export-actions">
        <a class="button" href={withQuery('/v1/links/export', { format: 'csv' })} download data-testid="export-csv">
          Download CSV
        </a>
        <a class="button" href={withQuery('/v1/links/export', { format: 'ndjson' })} download data-testid="export-ndjson">
          Download NDJSON
        </a>
      </div>
      <h3 class="export-clicks-title">A link's visits</h3>
      <p class="small-print">
        Each recorded visit of one link (time, referrer host, browser, OS, device, country, language, UTM fields, bot or human, QR scan; never an IP address) is
        exported from <code class="wrap-anywhere">/v1/links/&lt;id&gt;/clicks?format=csv</code> (or <code>format=ndjson</code>, with <code>from</code> and{' '}
        <code>to</code> dates). The id is the end of the link's page address in this dashboard (<code class="wrap-anywhere">/app/links/lnk_…</code>); while you
        are signed in, that address downloads in this browser, and with an API token from anywhere.
      </p>
    </section>
  )
}

/** Import & export (docs/api/export-import.md): import for `links:write`, export for anyone who reads links. */
export function ImportExportPage({ canWrite }: { canWrite: boolean }) {
  return (
    <section>
      <header class="page-header">
        <h1>Import &amp; export</h1>
      </header>
      {canWrite ? <ImportCard /> : null}
      <ExportCard />
    </section>
  )
}
