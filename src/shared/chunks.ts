/** `rows` cut into consecutive pieces of at most `size`: the unit of multi-row statements, which both databases bound in parameters. */
export const chunks = <T>(rows: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size))
