import type { Selectable } from 'kysely'

/** A workspace's QR logo: one row per workspace at most, the image as base64 text. */
export interface WorkspaceLogosTable {
  workspace_id: string
  content_type: 'image/png' | 'image/svg+xml'
  data: string
  bytes: number
  /** SHA-256 of the image, base64url: part of the ETag of every code that carries it. */
  digest: string
  updated_at: number
}

export type WorkspaceLogoRow = Selectable<WorkspaceLogosTable>
