/**
 * A positional layout: a record kept as numbers at fixed offsets of a flat array (a visit in a batch,
 * a profile in a block), named by one field list. Code that reads or writes one field uses `index`,
 * so that the order lives in the list alone; `read` takes a whole record where speed does not matter
 * (the hot paths index the array directly).
 */
export interface Layout<F extends string> {
  /** Numbers per record. */
  readonly width: number
  /** Each field's offset within a record. */
  readonly index: { readonly [K in F]: number }
  read(numbers: ArrayLike<number>, offset: number): Record<F, number>
}

export function layout<const F extends string>(fields: readonly F[]): Layout<F> {
  const index = Object.freeze(Object.fromEntries(fields.map((f, i) => [f, i]))) as { readonly [K in F]: number }
  return Object.freeze({
    width: fields.length,
    index,
    read(numbers: ArrayLike<number>, offset: number) {
      return Object.fromEntries(fields.map((f, i) => [f, numbers[offset + i] as number])) as Record<F, number>
    },
  })
}
