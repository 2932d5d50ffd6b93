import { classify, type ClassifiedVisit } from './classify.js'
import type { Visit } from './clicks.js'

/**
 * A batch of classified visits, column by column: one JSON value per batch in the journal, parsed
 * once, with every string (link id, breakdown value, visitor key) once in `strings` however many
 * visits share it. Per visit, FIELDS numbers in `visits`; a string field holds its index in `strings`,
 * or -1 for none.
 */
export interface VisitColumns {
  readonly strings: string[]
  readonly visits: number[]
}

export const FIELDS = 9
/** Where each field sits among a visit's FIELDS numbers. */
export const Field = { Link: 0, At: 1, Flags: 2, Referrer: 3, Browser: 4, Os: 5, Device: 6, Country: 7, Visitor: 8 } as const
export type Field = (typeof Field)[keyof typeof Field]
/** The bits of Field.Flags. */
export const BOT = 1
export const QR = 2

/**
 * One visit in a VisitColumns. A click block (the export's copy of a link's visits) has neither the link,
 * which its row names, nor the visitor key, which is kept only in the day's visitor set.
 */
export interface ColumnsRow extends Omit<ClassifiedVisit, 'visitorKey'> {
  readonly linkId: string | null
  readonly at: number
  readonly qr: boolean
  readonly visitorKey: string | null
}

/** Builds a VisitColumns, classifying each visit as it is added (classify.ts). */
export class VisitColumnsBuilder {
  readonly #strings: string[] = []
  readonly #index = new Map<string, number>()
  readonly #visits: number[] = []

  /** Classifies a raw visit and adds it. */
  add(visit: Visit, daySalt: string): void {
    this.push({ linkId: visit.linkId, at: visit.at, qr: visit.qr, ...classify(visit, daySalt) })
  }

  push(row: ColumnsRow): void {
    this.#visits.push(
      this.#intern(row.linkId),
      row.at,
      (row.bot ? BOT : 0) | (row.qr ? QR : 0),
      this.#intern(row.referrer),
      this.#intern(row.browser),
      this.#intern(row.os),
      this.#intern(row.device),
      this.#intern(row.country),
      this.#intern(row.visitorKey),
    )
  }

  get size(): number {
    return this.#visits.length / FIELDS
  }

  build(): VisitColumns {
    return { strings: this.#strings, visits: this.#visits }
  }

  #intern(value: string | null): number {
    if (value === null) return -1
    let i = this.#index.get(value)
    if (i === undefined) {
      i = this.#strings.push(value) - 1
      this.#index.set(value, i)
    }
    return i
  }
}

/** The string a column holds for the visit at `offset` in `visits`, or null. */
export const stringAt = (columns: VisitColumns, offset: number, field: Field): string | null => {
  const i = columns.visits[offset + field] as number
  return i < 0 ? null : (columns.strings[i] as string)
}

/** Every visit of a VisitColumns, as rows. */
export function* rowsOf(columns: VisitColumns): Generator<ColumnsRow> {
  const v = columns.visits
  for (let o = 0; o < v.length; o += FIELDS) {
    const flags = v[o + Field.Flags] as number
    yield {
      linkId: stringAt(columns, o, Field.Link),
      at: v[o + Field.At] as number,
      bot: (flags & BOT) !== 0,
      qr: (flags & QR) !== 0,
      referrer: stringAt(columns, o, Field.Referrer),
      browser: stringAt(columns, o, Field.Browser),
      os: stringAt(columns, o, Field.Os),
      device: stringAt(columns, o, Field.Device),
      country: stringAt(columns, o, Field.Country),
      visitorKey: stringAt(columns, o, Field.Visitor),
    }
  }
}
