import { AppError, conflict, notFound } from '../shared/errors.js'

export const invitationNotFound = () => notFound('pending invitation in this workspace', 'id')
export const onlyOwnersInviteOwners = () => new AppError(403, 'forbidden', 'only an owner invites an owner', 'role')
export const alreadyMember = (email: string) => conflict(`${email} is already a member of this workspace`, 'email')
export const signInFirst = () =>
  conflict('this email already has an account: sign in with it, then accept the invitation (send the secret alone, signed in)', 'secret')
export const emailMismatch = () =>
  new AppError(403, 'forbidden', 'this invitation is for another email than the signed-in account: sign in as the person it names', 'secret')

export const memberNotFound = () => notFound('member in this workspace', 'userId')
export const onlyOwnersResetOwners = () => new AppError(403, 'forbidden', "only an owner resets an owner's password", 'userId')
export const notAPerson = () =>
  new AppError(403, 'forbidden', 'only a person signed in to the dashboard changes their password (not an API token, nor a session opened with one)')
export const workspaceHasOwner = () => new AppError(410, 'gone', 'this workspace has members already: sign in, or ask its owner for an invitation', 'code')
