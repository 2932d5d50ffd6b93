export interface IdempotencyKeysTable {
  owner_id: string
  key: string
  request_hash: string
  /** Null while the first request is still being processed. */
  status_code: number | null
  response_body: string | null
  created_at: number
}
