import type { FastifyRequest } from 'fastify'

/**
 * The contract checks the resource (404) before the parameters (400), but Fastify validates every
 * part of a request at once. Routes whose body or query can be invalid therefore resolve their
 * resource in preValidation; `check` throws the feature's 404. (Id params carry no constraint of
 * their own, so an id can only ever be "not found".)
 */
export const resourceFirst =
  (check: (req: FastifyRequest, params: Record<string, string>) => Promise<unknown>) =>
  async (req: FastifyRequest): Promise<void> => {
    await check(req, req.params as Record<string, string>)
  }
