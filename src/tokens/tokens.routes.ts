import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { CreateTokenBody, TokenDeletedEnvelope, TokenEnvelope, TokenIdParams, TokenListEnvelope } from './tokens.schemas.js'
import type { TokenInfo, TokensService } from './tokens.service.js'
import { principalOf } from '../http/auth.js'

const tags = ['tokens']
const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]
// Revoked tokens are not listed, so the field is always null here.
const shown = ({ revokedAt: _revokedAt, ...info }: TokenInfo) => info

/** An owner manages its own tokens (docs/api/tokens.md#the-tokens-api). Every operation needs `tokens:write`: a token list is an inventory of credentials. */
export function tokensRoutes(app: App, { tokens }: { tokens: TokensService }): void {
  app.get(
    '/v1/tokens',
    {
      config: { scope: 'tokens:write' },
      schema: {
        tags,
        security,
        summary: 'Your active tokens (never the tokens themselves)',
        description:
          "Each token's name, scopes, creation and last use, and the first characters that identify it; the token itself is shown only when it is created.",
        response: { 200: TokenListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({
      success: true as const,
      data: (await tokens.listForOwner(principalOf(req))).map(({ current, ...info }) => ({ ...shown(info), current })),
    }),
  )

  app.post(
    '/v1/tokens',
    {
      config: { scope: 'tokens:write', audit: { resource: 'token' } },
      schema: {
        tags,
        security,
        summary: 'Create a token (shown in this response only) with at most your scopes',
        description: 'Send a `name` and the `scopes` it needs (a subset of yours). Store the token from this answer: only its hash is kept.',
        body: CreateTokenBody,
        response: { 201: TokenEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { token, ...info } = await tokens.createForOwner(principalOf(req), req.body)
      return reply.code(201).send({ success: true, data: { ...shown(info), token } })
    },
  )

  app.delete(
    '/v1/tokens/:id',
    {
      config: { scope: 'tokens:write', audit: { resource: 'token', action: 'revoked' } },
      schema: {
        tags,
        security,
        summary: 'Revoke a token: it and its sessions stop working at once',
        description: 'Requests with the token are 401 from the next one on, on every instance.',
        params: TokenIdParams,
        response: { 200: TokenDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: { id: (await tokens.revokeForOwner(principalOf(req), req.params.id)).id, deleted: true as const } }),
  )
}
