import type { FastifyRequest } from 'fastify'

/**
 * The API checks the resource (404) before the parameters (400), but Fastify validates every
 * part of a request at once. Routes whose body or query can be invalid therefore resolve their
 * resource, named by the `:id` of their URL, in preValidation; `check` throws the feature's 404.
 * (Id params carry no constraint of their own, so an id can only ever be "not found".)
 */
export const resourceFirst =
  (check: (req: FastifyRequest, id: string) => Promise<unknown>) =>
  async (req: FastifyRequest): Promise<void> => {
    // Not validated yet, but present: the router matched `:id`, and a matched segment is a string.
    await check(req, (req.params as { id: string }).id)
  }
