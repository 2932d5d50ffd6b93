import type { AccountsService } from '../accounts/accounts.service.js'
import type { Mailer } from '../mail/mailer.js'
import { invitationMessage } from '../mail/messages.js'
import type { SessionsService } from '../sessions/sessions.service.js'
import type { Clock } from '../shared/clock.js'
import type { Db } from '../storage/database.js'
import { transactional } from '../storage/transaction.js'
import { createOneTimeLinksRepository } from './invitations.repository.js'
import { createInvitationsService, type InvitationNotice } from './invitations.service.js'
import { createOneTimeLinks } from './one-time-links.service.js'
import { createPasswordResetsService } from './password-resets.service.js'
import { createSetupService } from './setup.service.js'

/** An invitation as mail (mail/messages.ts); the link is also in the API's answer, so a failed send loses nothing. */
export const mailInvitation = (mailer: Mailer) => (notice: InvitationNotice) => {
  if (!mailer.enabled) return
  const message = invitationMessage({
    to: notice.email,
    workspaceName: notice.workspaceName,
    role: notice.role,
    invitedBy: notice.createdBy?.label,
    url: notice.url,
    expiresAt: Date.parse(notice.expiresAt),
  })
  // The mailer has logged the failure already (without credentials).
  mailer.send(message).catch(() => {})
}

/** The three flows over one-time links: invitations, password resets and the first owner's setup. */
export function createOneTimeLinkFlows(deps: {
  db: Db
  accounts: AccountsService
  sessions: SessionsService
  clock: Clock
  notify: (invitation: InvitationNotice) => void
}) {
  const { db, accounts, sessions, clock } = deps
  const links = createOneTimeLinks({ repo: createOneTimeLinksRepository(db), transaction: transactional(db, createOneTimeLinksRepository), clock })
  return {
    invitations: createInvitationsService({ links, accounts, sessions, clock, notify: deps.notify }),
    passwordResets: createPasswordResetsService({ links, accounts, sessions, clock }),
    setup: createSetupService({ links, accounts, sessions }),
  }
}
