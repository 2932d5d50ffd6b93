import type { Compilable, CompiledQuery } from 'kysely'
import type { Db } from './database.js'

/**
 * A statement run again and again with the same number of rows (a roll-up's full chunks, the token
 * lookup of every API request, a link create's INSERT): Kysely builds and compiles it once per dialect;
 * later calls bind their values to the same SQL text, a flat array instead of a tree of nodes per value.
 * Buys: a roll-up over many links no longer spends a good part of its CPU building Kysely's trees
 * (docs/performance.md, "The click pipeline"), and a request no longer builds its token's lookup or
 * its link's INSERT. Any other number of rows is built by Kysely as usual. `columns` lists each row's
 * values in the order the statement binds them; the first compile checks that it does. The compiled
 * query keeps its kind, so a SELECT still runs on SQLite's reading connection. The SQL text is kept per
 * dialect (the executor's adapter), so one statement may serve transactions and databases of either.
 */
export function repeatedStatement<Row, Out = unknown>(
  columns: readonly (keyof Row & string)[],
  rows: number,
  build: (db: Db, rows: readonly Row[]) => Compilable<Out>,
): (db: Db, rows: readonly Row[]) => Promise<Out[]> {
  const compiled = new WeakMap<object, CompiledQuery<Out>>()
  return async (db, values) => {
    if (values.length !== rows) return (await db.executeQuery(build(db, values))).rows
    const parameters: unknown[] = []
    for (const row of values) for (const column of columns) parameters.push(row[column])
    const dialect = db.getExecutor().adapter
    let query = compiled.get(dialect)
    if (query === undefined) {
      query = build(db, values).compile()
      if (query.parameters.length !== parameters.length || query.parameters.some((p, i) => p !== parameters[i])) {
        throw new Error(`the statement does not bind its values in the order of its columns (${columns.join(', ')})`)
      }
      compiled.set(dialect, query)
    }
    return (await db.executeQuery<Out>({ ...query, parameters })).rows
  }
}

/** `row` with its values under `columns`, in that order: for a `build` whose rows may list their keys otherwise. */
export const inOrder = <Row>(columns: readonly (keyof Row & string)[], row: Row): Row =>
  Object.fromEntries(columns.map((column) => [column, row[column]])) as Row
