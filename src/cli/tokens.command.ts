import { AmbiguousTokenError, InvalidScopesError, parseScopes, SCOPES } from '../tokens/tokens.service.js'
import { CliError, parseCommandArgs, printTable, withContainer, type Command } from './command.js'

const HELP = `Usage:
  linkline tokens create --owner <ownerId> [--name <name>] [--scopes <a,b,...>]
      Creates a token and prints it (and nothing else) on stdout. It is shown only once.
      Scopes default to all: ${SCOPES.join(', ')}
  linkline tokens list [--json]
      Lists tokens: non-secret prefix, name, owner, scopes, creation date, status (--json: everything).
  linkline tokens revoke <token id, prefix or token>
      Revokes a token and says which; the next request with it is 401. A prefix from the list
      (ll_abc123…) works when no other active token shares it.`

/** A cell cut to `width` characters, marked with … when cut. */
const fit = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`)

const parse = (args: string[], options: Parameters<typeof parseCommandArgs>[1]) => parseCommandArgs(args, options, HELP)

export const tokensCommand: Command = {
  help: HELP,
  async run(args, config) {
    const [verb, ...rest] = args
    switch (verb) {
      case 'create': {
        const { values, positionals } = parse(rest, { owner: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' } })
        const owner = values.owner as string | undefined
        if (!owner || positionals.length > 0) throw new CliError(`tokens create needs --owner <ownerId>\n\n${HELP}`)
        if (owner.length > 128) throw new CliError('--owner must be at most 128 characters')
        let scopes
        try {
          scopes = parseScopes(values.scopes as string | undefined)
        } catch (error) {
          if (error instanceof InvalidScopesError) throw new CliError(error.message)
          throw error
        }
        const { token } = await withContainer(config(), (c) => c.tokens.create({ ownerId: owner, name: (values.name as string | undefined) ?? null, scopes }))
        process.stdout.write(`${token}\n`)
        return 0
      }
      case 'list': {
        const { values } = parse(rest, { json: { type: 'boolean' } })
        const tokens = await withContainer(config(), (c) => c.tokens.list())
        if (values.json) {
          process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`)
        } else {
          // Fits 100 columns: the prefix names a token for revoke; ids and full times are in --json.
          const all = (scopes: string[]) => SCOPES.every((s) => scopes.includes(s))
          const rows = tokens.map((t) => [
            `${t.prefix}…`,
            fit(t.name ?? '-', 16),
            fit(t.ownerId, 16),
            all(t.scopes) ? 'all' : fit(t.scopes.join(','), 30),
            t.createdAt.slice(0, 10),
            t.revokedAt === null ? 'active' : 'revoked',
          ])
          printTable(['PREFIX', 'NAME', 'OWNER', 'SCOPES', 'CREATED', 'STATUS'], rows)
        }
        return 0
      }
      case 'revoke': {
        const { positionals } = parse(rest, {})
        if (positionals.length !== 1) throw new CliError(`tokens revoke needs exactly one token id, prefix or token\n\n${HELP}`)
        let revoked
        try {
          revoked = await withContainer(config(), (c) => c.tokens.revoke(positionals[0] as string))
        } catch (error) {
          if (!(error instanceof AmbiguousTokenError)) throw error
          process.stderr.write(`linkline: ${error.message}\n`)
          return 1
        }
        if (!revoked) {
          process.stderr.write('linkline: no active token matches\n')
          return 1
        }
        process.stdout.write(`revoked ${revoked.id} (${revoked.prefix}…, name ${revoked.name ?? '-'}, owner ${revoked.ownerId})\n`)
        return 0
      }
      default:
        throw new CliError(`${verb === undefined ? 'tokens needs a verb' : `unknown verb "${verb}"`}\n\n${HELP}`)
    }
  },
}
