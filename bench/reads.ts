/** A read measured one request at a time; `paths` rotate, and the first must answer 200 with a body that `accept`s. */
export interface Read {
  name: string
  paths: string[]
  /** What the body must hold, for the error message. */
  expected: string
  accept: (body: unknown) => boolean
}

/** A page of exactly `count` rows in `data`. */
export const pageOf = (count: number): Pick<Read, 'expected' | 'accept'> => ({
  expected: `${count} rows`,
  accept: (body) => ((body as { data?: unknown[] }).data ?? []).length === count,
})
