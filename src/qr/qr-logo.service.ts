import { createHash } from 'node:crypto'
import { notFound } from '../shared/errors.js'
import type { Clock } from '../shared/clock.js'
import { checkLogo, type LogoType } from './qr-logo.images.js'
import type { QrLogoRepository } from './qr-logo.repository.js'
import type { WorkspaceLogoRow } from './qr-logo.table.js'

/** What the API tells of a logo (the image itself is `GET /v1/workspace/logo`). */
export interface LogoInfo {
  readonly contentType: LogoType
  readonly bytes: number
  readonly updatedAt: string
}

/** A stored logo: what a code needs to carry it and an ETag needs to follow it. */
export interface StoredLogo {
  readonly type: LogoType
  readonly data: Buffer
  readonly digest: string
  readonly updatedAt: number
}

const stored = (row: WorkspaceLogoRow): StoredLogo => ({
  type: row.content_type,
  data: Buffer.from(row.data, 'base64'),
  digest: row.digest,
  updatedAt: row.updated_at,
})

/** The workspace's logo for its QR codes (docs/api/qr-codes.md#logo): one per workspace, replaced whole. */
export function createQrLogoService(deps: { repo: QrLogoRepository; clock: Clock }) {
  return {
    /** Checks and stores the logo, replacing the previous one (throws 400 `logo`). */
    async put(workspaceId: string, type: LogoType, data: Buffer): Promise<LogoInfo> {
      checkLogo(type, data)
      const updatedAt = deps.clock.now()
      await deps.repo.put({
        workspace_id: workspaceId,
        content_type: type,
        data: data.toString('base64'),
        bytes: data.length,
        digest: createHash('sha256').update(data).digest('base64url'),
        updated_at: updatedAt,
      })
      return { contentType: type, bytes: data.length, updatedAt: new Date(updatedAt).toISOString() }
    },

    async find(workspaceId: string): Promise<StoredLogo | undefined> {
      const row = await deps.repo.find(workspaceId)
      return row && stored(row)
    },

    /** The logo, or 404. */
    async get(workspaceId: string): Promise<StoredLogo> {
      const row = await deps.repo.find(workspaceId)
      if (!row) throw notFound('logo')
      return stored(row)
    },

    /** Removes the logo; 404 when there is none. */
    async remove(workspaceId: string): Promise<void> {
      if (!(await deps.repo.remove(workspaceId))) throw notFound('logo')
    },
  }
}
export type QrLogoService = ReturnType<typeof createQrLogoService>
