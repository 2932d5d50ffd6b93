import { AppError, serviceUnavailable, validationError } from '../shared/errors.js'

export const invisibleCode = () => validationError('background', 'background must differ from color, or the code cannot be read')
export const qrBusy = () => serviceUnavailable('too many QR codes are being rendered; retry shortly')
/** One owner's renders are over its share of the pool: the others are still served (429, not 503: the caller is the cause). */
export const qrOwnerBusy = (share: number) =>
  new AppError(429, 'rate_limited', `this workspace already has ${share} QR codes rendering or waiting; retry shortly`, undefined, { 'Retry-After': '1' })
export const noLogo = () => validationError('logo', 'this workspace has no logo: upload one with PUT /v1/workspace/logo')
/** No rasteriser for SVG runs in the server: an SVG logo goes on SVG codes. */
export const svgLogoOnPng = () =>
  validationError('format', 'the workspace logo is an SVG image, which can be placed on SVG codes only: ask for format=svg, or upload a PNG logo')
export const logoMediaType = () => new AppError(415, 'unsupported_media_type', 'send the logo as the raw image, with Content-Type image/png or image/svg+xml')
