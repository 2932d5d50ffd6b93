/**
 * CSV cells that no spreadsheet runs as a formula, and that read back as they were written.
 *
 * A spreadsheet treats a cell beginning with `=`, `+`, `-`, `@`, tab or CR as a formula (CSV
 * injection). Such a cell is written with a `'` in front, which spreadsheets show as text. To keep the
 * escape reversible, a cell that begins with quotes followed by one of those characters (`'=x`, `''+1`)
 * gets one more `'` too: so a cell that begins with one or more `'` and then one of them always carries
 * exactly one added quote, and restoreCell removes it. Every other cell is left as it is.
 */
const ESCAPED = /^'*[=+\-@\t\r]/
const RESTORABLE = /^'+[=+\-@\t\r]/

/** The cell as a CSV export writes it. */
export const neutralizeCell = (value: string): string => (ESCAPED.test(value) ? `'${value}` : value)

/** The text that neutralizeCell was given: the one `'` it added, removed. */
export const restoreCell = (cell: string): string => (RESTORABLE.test(cell) ? cell.slice(1) : cell)
