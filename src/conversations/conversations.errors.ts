import { notFound, validationError } from '../shared/errors.js'

export const conversationNotFound = () => notFound('conversation')
export const messageNotFound = () => notFound('message')
export const contactOrGroup = (param: 'contact_id' | 'group_id') => validationError(param, 'send exactly one of contact_id and group_id')
export const pinnedMessageElsewhere = () => validationError('pinned_message_id', 'pinned_message_id must be the id of a message of this conversation')
export const bothCursors = () => validationError('ending_before', 'send starting_after or ending_before, not both')
export const unknownCursor = (param: 'starting_after' | 'ending_before') => validationError(param, `${param} must be the id of an item of this list`)
