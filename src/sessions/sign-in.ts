import type { FastifyRequest } from 'fastify'
import type { AccountsService } from '../accounts/accounts.service.js'
import { clientBlock } from '../http/client-address.js'
import type { App } from '../http/types.js'
import { AppError } from '../shared/errors.js'
import type { Opened, SessionsService } from './sessions.service.js'
import { createSignInLimits } from './sign-in-limits.js'

// Every 401 names the scheme to authenticate with (docs/api/README.md#errors), as a wrong token's does.
const wrongCredentials = () => new AppError(401, 'unauthorized', 'wrong email or password', undefined, { 'WWW-Authenticate': 'Bearer' })

/**
 * The two ways a browser signs in, behind the sign-in limits (sign-in-limits.ts): a failure counts
 * against the address (and the email); after 10 in 15 minutes both are refused before any check.
 */
export function createSignIn(app: App, deps: { sessions: SessionsService; accounts: AccountsService; passwordSignIn: boolean }) {
  const { sessions, accounts, passwordSignIn } = deps
  const limits = createSignInLimits(app)

  const counted = async (req: FastifyRequest, open: () => Promise<Opened>): Promise<Opened> => {
    await limits.check(req)
    return open().catch(async (error: unknown) => {
      if (error instanceof AppError && error.statusCode === 401) await limits.failed(req)
      throw error
    })
  }

  return {
    withToken: (req: FastifyRequest, token: string) => counted(req, () => sessions.open(token, () => limits.admit(req))),

    withPassword: (req: FastifyRequest, email: string, password: string) =>
      counted(req, async () => {
        if (!passwordSignIn) throw new AppError(403, 'forbidden', 'signing in with a password is turned off here: use single sign-on', 'password')
        const user = await accounts.checkPassword(email, password, clientBlock(req.ip))
        if (!user) throw wrongCredentials()
        return sessions.openForUser(user.id)
      }),
  }
}

export type SignIn = ReturnType<typeof createSignIn>
