import { conflict, notFound, validationError } from '../shared/errors.js'

export const linkNotFound = (param?: string) => notFound('link', param)
export const pathTaken = (domain: string, path: string) =>
  conflict(`${domain}${path} is already taken`, 'path')
export const invalidDestination = () =>
  validationError('destination', 'destination must be an absolute http or https URL with a host')
export const destinationControlCharacter = () =>
  validationError('destination', 'destination must not contain control characters (U+0000-U+001F, U+007F)')
export const destinationTooLong = (max: number) =>
  validationError('destination', `destination must be at most ${max} characters once percent-encoded`)
export const destinationLoops = () =>
  validationError('destination', 'destination points at this very short link, which would redirect to itself')
export const reservedPath = (path: string) =>
  validationError('path', `path "${path}" is served by Linkline itself on its default domains`)
export const dotSegment = () =>
  validationError('path', 'a path segment may not be . or .. (browsers resolve them away before visiting)')
export const titleAndDisplayName = () =>
  validationError('display_name', 'send title or display_name (an alias of title), not both')
