/**
 * Who did something: a person (`usr_…`) or an API token (`tok_…`), with a label to show (the
 * person's email, the token's name or prefix) as it was at the time.
 */
export interface Actor {
  readonly type: 'user' | 'token'
  readonly id: string
  readonly label: string
}

/** The columns that record who made a row; null on rows from before people existed. */
export interface CreatedByColumns {
  created_by_type: 'user' | 'token' | null
  created_by_id: string | null
  created_by_label: string | null
}

export const createdByColumns = (actor: Actor | undefined): CreatedByColumns => ({
  created_by_type: actor?.type ?? null,
  created_by_id: actor?.id ?? null,
  created_by_label: actor?.label ?? null,
})

/** `createdBy` of an object, from its row. */
export const createdByOf = (row: CreatedByColumns): Actor | null =>
  row.created_by_type === null || row.created_by_id === null ? null : { type: row.created_by_type, id: row.created_by_id, label: row.created_by_label ?? '' }
