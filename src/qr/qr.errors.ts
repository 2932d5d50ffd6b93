import { serviceUnavailable, validationError } from '../shared/errors.js'

export const invisibleCode = () => validationError('background', 'background must differ from color, or the code cannot be read')
export const qrBusy = () => serviceUnavailable('too many QR codes are being rendered; retry shortly')
