import type { AppError} from '../shared/errors.js';
import { conflict, notFound, validationError } from '../shared/errors.js'

export const domainNotAllowed = (domain: string) =>
  validationError('domain', `domain "${domain}" is neither a default domain nor one of your custom domains`)
export const domainTaken = (name: string) => conflict(`domain "${name}" is already claimed`, 'name')
export const domainInUse = (name: string) => conflict(`domain "${name}" is still used by links; delete or move them first`, 'name')
export const domainNotFound = () => notFound('domain', 'name')
export const defaultDomainNotDeletable = (name: string): AppError =>
  validationError('name', `"${name}" is a default domain, set by configuration (LINKLINE_DOMAINS)`)
