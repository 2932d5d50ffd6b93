import { notFound, validationError } from '../shared/errors.js'

export const webhookNotFound = () => notFound('webhook')
export const deliveryNotFound = () => notFound('delivery', 'delivery_id')
export const invalidWebhookUrl = () => validationError('url', 'url must be an absolute http or https URL with a host, without user name or password')
export const privateWebhookUrl = (host: string, address: string) =>
  validationError(
    'url',
    `url's host ${host} resolves to ${address}, a loopback, private or link-local address (allowed only with LINKLINE_FETCH_ALLOW_PRIVATE=true)`,
  )
