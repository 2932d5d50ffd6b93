import { conflict, notFound, validationError } from '../shared/errors.js'

export const linkNotFound = (param?: string) => notFound('link', param)
export const pathTaken = (domain: string, path: string) =>
  conflict(`${domain}${path} is already taken`, 'path')
export const invalidDestination = () =>
  validationError('destination', 'destination must be an absolute http or https URL with a host')
export const destinationLoops = () =>
  validationError('destination', 'destination points at this very short link, which would redirect to itself')
export const destinationChainTooLong = (hops: number) =>
  validationError('destination', `destination goes through more than ${hops} short links of this service; point it at the final URL`)
export const reservedPath = (path: string) =>
  validationError('path', `path "${path}" is served by Linkline itself, on every domain`)
export const titleAndDisplayName = () =>
  validationError('display_name', 'send title or display_name (an alias of title), not both')
