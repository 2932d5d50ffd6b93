import { validationError } from '../shared/errors.js'

export const invalidDate = (param: 'from' | 'to') =>
  validationError(param, `${param} must be a date (2026-11-01) or an ISO 8601 date-time (2026-11-01T12:00:00Z)`)
export const outOfRange = (param: 'from' | 'to') => validationError(param, `${param} must lie between 1970-01-01 and 2100-01-01`)
export const rangeReversed = () => validationError('from', 'from must not be after to')
export const tooManyBuckets = (param: 'from' | 'interval', max: number) =>
  validationError(param, `the range holds more than ${max} buckets of this interval: shorten the range or choose a coarser interval`)
