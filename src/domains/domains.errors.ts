import type { AppError } from '../shared/errors.js'
import { conflict, notFound, validationError } from '../shared/errors.js'

export const domainNotAllowed = (domain: string) => validationError('domain', `domain "${domain}" is neither a default domain nor one of your custom domains`)
export const domainPending = (domain: string) =>
  validationError('domain', `domain "${domain}" is not verified yet: publish its TXT record, then POST /v1/domains/${domain}/verify`)
export const domainTaken = (name: string) => conflict(`domain "${name}" is already claimed`, 'name')
export const domainInUse = (name: string) => conflict(`domain "${name}" is still used by links; delete or move them first`, 'name')
export const domainNotFound = () => notFound('domain', 'name')
export const defaultDomainNotDeletable = (name: string): AppError =>
  validationError('name', `"${name}" is a default domain, set by configuration (LINKLINE_DOMAINS)`)
export const invalidDomainName = () =>
  validationError(
    'name',
    'name must be a host name (labels of letters, digits and hyphens separated by dots; IDN allowed), optionally with :port from 1 to 65535',
  )
export const ipLiteralDomain = (name: string) => validationError('name', `"${name}" is an IP address; a custom domain must be a DNS name`)
export const serviceHostDomain = (name: string) =>
  validationError('name', `"${name}" is a host name of this service itself (a default domain or LINKLINE_RESERVED_HOSTS)`)
