import { Type, type Static } from 'typebox'
import { Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { DIMENSION_NAMES, DIMENSIONS, type BreakdownField } from './stats.dimensions.js'
import { zoneAndFormat } from './stats.params.js'

const INTERVALS = ['hour', 'day', 'month'] as const

export const StatsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ maxLength: 64, description: 'A date (2026-11-01) or an ISO 8601 date-time; default: 30 days ago (start of day)' })),
    to: Type.Optional(Type.String({ maxLength: 64, description: 'A date (its whole day is included) or an ISO 8601 date-time; default: now' })),
    interval: Type.Optional(StringEnum(INTERVALS, { default: 'day' })),
    ...zoneAndFormat,
  },
  { additionalProperties: false },
)
export type StatsQuery = Static<typeof StatsQuery>

const Breakdown = (about: string, example: string) =>
  Type.Array(Type.Object({ value: Type.String({ examples: [example] }), clicks: Type.Integer({ examples: [42] }) }), {
    description: `${about}. Top 10 values by human clicks; an 11th row "other" sums the rest`,
  })

/** One field per dimension (stats.dimensions.ts), in the order of the list: a new dimension is a new field. */
const breakdowns = Object.fromEntries(DIMENSION_NAMES.map((d) => [DIMENSIONS[d].field, Breakdown(DIMENSIONS[d].about, DIMENSIONS[d].example)])) as Record<
  BreakdownField,
  ReturnType<typeof Breakdown>
>

export const StatsObject = Type.Object(
  {
    linkId: Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time', description: 'Exclusive' }),
    interval: StringEnum(INTERVALS),
    tz: Type.String({ examples: ['Europe/Berlin'], description: 'The time zone of the day and month buckets, as canonically named' }),
    totalClicks: Type.Integer({ description: 'humanClicks + botClicks' }),
    humanClicks: Type.Integer(),
    botClicks: Type.Integer(),
    qrScans: Type.Integer({ description: 'Human visits through the QR code' }),
    uniqueVisitors: Type.Integer({ description: 'Sum over UTC days of the distinct human visitors of each day' }),
    lastClickedAt: Nullable(Type.String({ format: 'date-time', description: 'Latest human click, whatever the range' })),
    timeseries: Type.Array(Type.Object({ start: Type.String({ format: 'date-time' }), clicks: Type.Integer() })),
    ...breakdowns,
  },
  { $id: 'LinkStats' },
)
export type StatsObject = Static<typeof StatsObject>

export const StatsEnvelope = Envelope(Type.Ref('LinkStats'))
