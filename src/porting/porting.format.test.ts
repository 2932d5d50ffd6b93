import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { text } from 'node:stream/consumers'
import { after, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { encode, LINK_CSV_COLUMNS } from './porting.format.js'
import { openImport } from './porting.import.js'

const dir = mkdtempSync(join(tmpdir(), 'linkline-format-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** Text made mostly of what spreadsheets, CSV and the tag list treat specially. */
const tricky = (minLength: number, maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", '"', ',', '|', '[', ' '),
      fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
    ),
    minLength,
    maxLength,
  })

async function* one(record: Record<string, unknown>) {
  yield record
}

test("property: a link's title and tags, written to Linkline's CSV, are neutralised and read back by the import exactly", async () => {
  let n = 0
  await fc.assert(
    fc.asyncProperty(tricky(1, 40), fc.uniqueArray(tricky(1, 12), { maxLength: 5 }), async (title, tags) => {
      const link = { destination: 'https://example.com/', path: '/p', title, tags, hasPassword: false, rules: null }
      const csv = await text(encode('csv', LINK_CSV_COLUMNS, one(link)))
      for (const cell of (parse(csv) as string[][]).flat()) assert.doesNotMatch(cell, /^[=+\-@\t\r]/, csv)
      const file = join(dir, `${n++}.csv`)
      writeFileSync(file, csv)
      const rows = []
      for await (const row of (await openImport({ file }, undefined)).rows) rows.push(row)
      assert.equal(rows.length, 1)
      const row = rows[0] as { record: { title?: string; tags: string[] } }
      assert.deepEqual([row.record.title, row.record.tags], [title, tags])
    }),
    { numRuns: 300 },
  )
})
