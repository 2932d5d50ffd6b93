import { Type } from 'typebox'
import { StringEnum } from '../shared/schema.js'

export const STATS_FORMATS = ['json', 'csv'] as const
export type StatsFormat = (typeof STATS_FORMATS)[number]

/** The parameters every statistics endpoint takes besides its range: spread into each one's query schema. */
export const zoneAndFormat = {
  tz: Type.Optional(
    Type.String({
      maxLength: 64,
      default: 'UTC',
      examples: ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'],
      description: 'An IANA time zone (Europe/Paris): day and month buckets, and from/to given as dates, are in it',
    }),
  ),
  format: Type.Optional(
    StringEnum(STATS_FORMATS, { default: 'json', description: 'csv: the same statistics as section,value,clicks rows, then the time series' }),
  ),
}
