import { CompiledQuery, type Compilable } from 'kysely'
import type { Transaction } from './transaction.js'

/**
 * A multi-row statement run again and again with the same number of rows (a roll-up's full chunks):
 * Kysely builds and compiles it once; later calls bind their values to the same SQL text, a flat array
 * instead of a tree of nodes per value. Buys: a roll-up over many links no longer spends a good part of
 * its CPU building Kysely's trees (docs/performance.md, "The click pipeline"). Any other number of rows is built by Kysely as usual. `columns` lists each row's values in the
 * order the statement binds them; the first compile checks that it does. One per connection's dialect:
 * the SQL text is the dialect's.
 */
export function repeatedStatement<Row, Out = unknown>(
  columns: readonly (keyof Row & string)[],
  rows: number,
  build: (trx: Transaction, rows: readonly Row[]) => Compilable<Out>,
): (trx: Transaction, rows: readonly Row[]) => Promise<Out[]> {
  let text: string | undefined
  return async (trx, values) => {
    if (values.length !== rows) return (await trx.executeQuery(build(trx, values))).rows
    const parameters: unknown[] = []
    for (const row of values) for (const column of columns) parameters.push(row[column])
    if (text === undefined) {
      const compiled = build(trx, values).compile()
      if (compiled.parameters.length !== parameters.length || compiled.parameters.some((p, i) => p !== parameters[i])) {
        throw new Error(`the statement does not bind its values in the order of its columns (${columns.join(', ')})`)
      }
      text = compiled.sql
    }
    return (await trx.executeQuery(CompiledQuery.raw(text, parameters))).rows as Out[]
  }
}
