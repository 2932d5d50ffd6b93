import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { CreateDomainBody, DomainDeletedEnvelope, DomainEnvelope, DomainListEnvelope, DomainNameParams } from './domains.schemas.js'
import type { DomainsService } from './domains.service.js'
import { principalOf } from '../http/auth.js'

const tags = ['domains']
const security = [{ bearer: [] }]

export function domainsRoutes(app: App, { domains }: { domains: DomainsService }): void {
  app.get(
    '/v1/domains',
    {
      config: { scope: 'domains:read' },
      schema: {
        tags,
        security,
        summary: 'The default domains and your custom domains',
        description:
          "Every domain your links may use: the server's default domains (`isDefault: true`, always verified) and your custom domains with their `status` and the DNS TXT record that verifies them.",
        response: { 200: DomainListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await domains.list(principalOf(req)) }),
  )

  app.post(
    '/v1/domains',
    {
      // 200: the caller renewed its own pending claim.
      config: { scope: 'domains:write', audit: { resource: 'domain', id: 'name', action: { 201: 'created', 200: 'renewed' } } },
      schema: {
        tags,
        security,
        summary: 'Claim a custom domain (pending until its DNS TXT record is found); 200 renews your own pending claim',
        description:
          'The answer holds the TXT record to publish (`_linkline.<name>`). Until it is found the domain is `pending`: it takes no link and serves no redirect. It is looked up periodically and on `POST /v1/domains/{name}/verify`. A name another workspace verified is 409; an IP address, a default or reserved host is 400.',
        body: CreateDomainBody,
        response: { 200: DomainEnvelope, 201: DomainEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { domain, created } = await domains.create(principalOf(req), req.body.name)
      return reply.code(created ? 201 : 200).send({ success: true, data: domain })
    },
  )

  app.get(
    '/v1/domains/:name',
    {
      config: { scope: 'domains:read' },
      schema: {
        tags,
        security,
        summary: 'One of your custom domains, with its verification record',
        description: "Its `status`, when it was verified, and the TXT record that verifies it. Another workspace's domain is 404.",
        params: DomainNameParams,
        response: { 200: DomainEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await domains.get(principalOf(req), req.params.name) }),
  )

  app.post(
    '/v1/domains/:name/verify',
    {
      config: { scope: 'domains:write', audit: { resource: 'domain', id: 'name', action: 'verification_checked' } },
      schema: {
        tags,
        security,
        summary: 'Look the verification TXT record up now',
        description:
          'Looks `_linkline.<name>` up at once instead of waiting for the periodic check; answers the domain with its `status`, verified once the record holds the expected value.',
        params: DomainNameParams,
        response: { 200: DomainEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await domains.verify(principalOf(req), req.params.name) }),
  )

  app.delete(
    '/v1/domains/:name',
    {
      config: { scope: 'domains:write', audit: { resource: 'domain', id: 'name' } },
      schema: {
        tags,
        security,
        summary: 'Release a custom domain (409 while links use it)',
        description: 'Move or delete its links first: a domain that links still use is 409.',
        params: DomainNameParams,
        response: { 200: DomainDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: { name: await domains.delete(principalOf(req), req.params.name), deleted: true as const } }),
  )
}
