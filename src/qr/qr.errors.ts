import { validationError } from '../shared/errors.js'

export const invisibleCode = () => validationError('background', 'background must differ from color, or the code cannot be read')
