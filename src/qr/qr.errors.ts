import { AppError, serviceUnavailable, validationError } from '../shared/errors.js'

export const invisibleCode = () => validationError('background', 'background must differ from color, or the code cannot be read')
export const qrBusy = () => serviceUnavailable('too many QR codes are being rendered; retry shortly')
/** One owner's renders are over its share of the pool: the others are still served (429, not 503: the caller is the cause). */
export const qrOwnerBusy = (share: number) =>
  new AppError(429, 'rate_limited', `this workspace already has ${share} QR codes rendering or waiting; retry shortly`, undefined, { 'Retry-After': '1' })
