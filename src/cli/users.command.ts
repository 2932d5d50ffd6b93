import { normalizeEmail } from '../accounts/accounts.service.js'
import { isRole, ROLES } from '../accounts/roles.js'
import type { Config } from '../config.js'
import type { Container } from '../container.js'
import { listenBaseUrl } from '../http/public-url.js'
import { FIRST_PASSWORD_TTL_MS } from '../invitations/one-time-links.service.js'
import { AppError } from '../shared/errors.js'
import { CliError, parseCommandArgs, printTable, withContainer, type Command } from './command.js'

const HELP = `Usage:
  linkline users create --email <email> --workspace <id> --role <role> [--name <name>]
      Creates a person in a workspace (created if need be) with a role: ${ROLES.join(', ')}.
      Prints (alone on stdout) a one-time link where they set their password: it works once, for
      24 hours. No password ever passes through the shell or its history.
  linkline users list [--json]
      Lists people: email, name, workspace:role of each membership, last sign-in.
  linkline users remove --email <email>
      Deletes the person: their memberships and sessions end, and every token they made is revoked.
  linkline users reset-password --email <email>
      Prints (alone on stdout) a one-time link, valid 1 hour, that sets a new password; using it ends
      every session of that person.
  Links start with LINKLINE_PUBLIC_URL when set, else with http://<HOST>:<PORT>.`

const parse = (args: string[], options: Parameters<typeof parseCommandArgs>[1]) => parseCommandArgs(args, options, HELP)

/** The --email option, required and well formed. */
function emailOption(values: Record<string, unknown>, verb: string): string {
  const raw = values.email
  if (typeof raw !== 'string' || raw === '') throw new CliError(`users ${verb} needs --email <email>\n\n${HELP}`)
  try {
    return normalizeEmail(raw, '--email').email
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error))
  }
}

/** Prints a link on stdout, and on stderr what it does and (without a public URL) where its address comes from. */
function printLink(config: Config, url: string, what: string): void {
  process.stderr.write(`${what}\n`)
  if (!listenBaseUrl(config).configured) {
    process.stderr.write('(the link starts with HOST and PORT: set LINKLINE_PUBLIC_URL to the address people reach Linkline at)\n')
  }
  process.stdout.write(`${url}\n`)
}

/** Runs a command's work; a service's refusal (an email taken, none found) is the operator's to fix: exit 1. */
async function refusable(config: Config, work: (c: Container) => Promise<void>): Promise<number> {
  try {
    await withContainer(config, work)
    return 0
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    process.stderr.write(`linkline: ${error.message}\n`)
    return 1
  }
}

const noSuchPerson = (email: string) => new AppError(404, 'not_found', `no person has the email ${email}`)

async function list(c: Container, json: boolean): Promise<void> {
  const users = await Promise.all(
    (await c.accounts.listUsers()).map(async (u) => ({
      id: u.id,
      email: u.email,
      name: u.name,
      createdAt: new Date(Number(u.created_at)).toISOString(),
      lastSignInAt: u.last_sign_in_at === null ? null : new Date(Number(u.last_sign_in_at)).toISOString(),
      memberships: (await c.accounts.membershipsOf(u.id)).map((m) => ({ workspaceId: m.workspaceId, role: m.role })),
    })),
  )
  if (json) return void process.stdout.write(`${JSON.stringify(users, null, 2)}\n`)
  const rows = users.map((u) => [
    u.email,
    u.name === '' ? '-' : u.name,
    u.memberships.map((m) => `${m.workspaceId}:${m.role}`).join(',') || '-',
    u.lastSignInAt === null ? 'never' : `${u.lastSignInAt.slice(0, 16).replace('T', ' ')} UTC`,
  ])
  printTable(['EMAIL', 'NAME', 'WORKSPACES', 'LAST SIGN-IN'], rows)
}

export const usersCommand: Command = {
  help: HELP,
  async run(args, config) {
    const [verb, ...rest] = args
    switch (verb) {
      case 'create': {
        const { values, positionals } = parse(rest, {
          email: { type: 'string' },
          workspace: { type: 'string' },
          role: { type: 'string' },
          name: { type: 'string' },
        })
        const email = emailOption(values, 'create')
        const workspace = values.workspace as string | undefined
        const role = values.role as string | undefined
        const name = (values.name as string | undefined)?.trim() ?? ''
        if (!workspace || positionals.length > 0) throw new CliError(`users create needs --workspace <id>\n\n${HELP}`)
        if (workspace.length > 128) throw new CliError('--workspace must be at most 128 characters')
        if (role === undefined || !isRole(role)) throw new CliError(`users create needs --role, one of ${ROLES.join(', ')}\n\n${HELP}`)
        if ([...name].length > 100) throw new CliError('--name must be at most 100 characters')
        const settings = config()
        return refusable(settings, async (c) => {
          const user = await c.accounts.createUser({ email, name })
          await c.accounts.join(user.id, workspace, role)
          const link = await c.passwordResets.issue(user, workspace, listenBaseUrl(settings).url, { ttlMs: FIRST_PASSWORD_TTL_MS })
          printLink(
            settings,
            link.url,
            `created ${user.email} (${user.id}), ${role} of ${workspace}; this link sets their password, once, until ${link.expiresAt}:`,
          )
        })
      }
      case 'list': {
        const { values } = parse(rest, { json: { type: 'boolean' } })
        return refusable(config(), (c) => list(c, values.json === true))
      }
      case 'remove': {
        const email = emailOption(parse(rest, { email: { type: 'string' } }).values, 'remove')
        return refusable(config(), async (c) => {
          const user = await c.accounts.findUserByEmail(email)
          if (!user) throw noSuchPerson(email)
          const memberships = await c.accounts.membershipsOf(user.id)
          let revoked = 0
          for (const m of memberships) revoked += await c.tokens.revokeMadeBy(user.id, m.workspaceId)
          // Memberships and sessions go with the row (foreign keys, on delete cascade).
          await c.accounts.removeUser(user.id)
          process.stdout.write(`removed ${user.email} (${user.id}): ${memberships.length} membership(s) ended, ${revoked} token(s) revoked\n`)
        })
      }
      case 'reset-password': {
        const email = emailOption(parse(rest, { email: { type: 'string' } }).values, 'reset-password')
        const settings = config()
        return refusable(settings, async (c) => {
          const user = await c.accounts.findUserByEmail(email)
          if (!user) throw noSuchPerson(email)
          const workspace = (await c.accounts.membershipsOf(user.id))[0]?.workspaceId ?? settings.bootstrapOwner
          const link = await c.passwordResets.issue(user, workspace, listenBaseUrl(settings).url)
          printLink(settings, link.url, `this link sets a new password for ${user.email}, once, until ${link.expiresAt}; every session of theirs then ends:`)
        })
      }
      default:
        throw new CliError(`${verb === undefined ? 'users needs a verb' : `unknown verb "${verb}"`}\n\n${HELP}`)
    }
  },
}
