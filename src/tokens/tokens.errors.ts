import { notFound, validationError } from '../shared/errors.js'

export const tokenNotFound = () => notFound('token', 'id')
export const scopesBeyondCaller = (scopes: string[]) =>
  validationError('scopes', `a new token can have at most the scopes of the token that creates it; this one lacks ${scopes.join(', ')}`)
export const invalidExpiry = (must: string) => validationError('expiresAt', `expiresAt must be ${must}`)
