import { createHash, randomBytes } from 'node:crypto'
import type { OneTimeLinkKind, OneTimeLinkRow } from '../accounts/accounts.table.js'
import type { Role } from '../accounts/roles.js'
import { createdByColumns, type Actor } from '../shared/actor.js'
import type { Clock } from '../shared/clock.js'
import { gone } from '../shared/errors.js'
import { newId } from '../shared/ids.js'
import type { Transaction, Transactional } from '../storage/transaction.js'
import type { OneTimeLinksRepository } from './invitations.repository.js'

const HOUR_MS = 60 * 60 * 1000
/** How long each kind of link can be used (docs/accounts.md#one-time-links). */
export const INVITATION_TTL_MS = 7 * 24 * HOUR_MS
export const PASSWORD_RESET_TTL_MS = HOUR_MS
export const SETUP_TTL_MS = 24 * HOUR_MS
/** A person made from the command line sets their first password through a reset link this long. */
export const FIRST_PASSWORD_TTL_MS = 24 * HOUR_MS

const ID_PREFIX = { invitation: 'inv', password_reset: 'rst', setup: 'stp' } as const
/** The dashboard page each kind of link opens. */
const PAGE: Record<OneTimeLinkKind, (secret: string) => string> = {
  invitation: (secret) => `/app/invite/${secret}`,
  password_reset: (secret) => `/app/reset/${secret}`,
  setup: (secret) => `/app/setup?code=${secret}`,
}

/** Secrets are kept only as this: a copy of the table opens nothing. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')

/** The link a person opens: `base` (no trailing slash) and the kind's page. */
export const linkUrl = (base: string, kind: OneTimeLinkKind, secret: string) => `${base.replace(/\/+$/, '')}${PAGE[kind](secret)}`

export interface NewLink {
  kind: OneTimeLinkKind
  workspaceId: string
  email?: string
  role?: Role
  userId?: string
  createdBy?: Actor
}

/**
 * Secrets shown once (invitations, password resets, the first owner's setup): 256 random bits,
 * stored as SHA-256, usable once, until they expire or are revoked.
 */
export function createOneTimeLinks(deps: { repo: OneTimeLinksRepository; transaction: Transactional<OneTimeLinksRepository>; clock: Clock }) {
  const { repo, transaction, clock } = deps
  return {
    repo,

    /** Stores a new link, valid for `ttlMs`; its secret is returned here and never stored. */
    async issue(link: NewLink, ttlMs: number): Promise<{ row: OneTimeLinkRow; secret: string }> {
      const secret = randomBytes(32).toString('base64url')
      const now = clock.now()
      const row: OneTimeLinkRow = {
        id: newId(ID_PREFIX[link.kind]),
        kind: link.kind,
        secret_hash: hashSecret(secret),
        workspace_id: link.workspaceId,
        email: link.email ?? null,
        role: link.role ?? null,
        user_id: link.userId ?? null,
        ...createdByColumns(link.createdBy),
        created_at: now,
        expires_at: now + ttlMs,
        used_at: null,
        revoked_at: null,
      }
      await repo.insert(row)
      return { row, secret }
    },

    /**
     * The link `secret` opens, if it can still be used; else 410 on `param`. An unknown secret is 410
     * too, with the same message: an answer tells a guesser nothing a used link would not.
     */
    async usable(secret: string, kind: OneTimeLinkKind, what: string, param: string): Promise<OneTimeLinkRow> {
      const row = await repo.findByHash(hashSecret(secret))
      if (!row || row.kind !== kind || row.used_at !== null || row.revoked_at !== null || Number(row.expires_at) <= clock.now()) throw gone(what, param)
      return row
    },

    /**
     * Uses the link and runs `work` in one transaction: of requests racing with one secret only one
     * gets past the claim (the others are 410), and a `work` that fails leaves the link unused.
     */
    useThen<T>(link: OneTimeLinkRow, what: string, param: string, work: (trx: Transaction) => Promise<T>): Promise<T> {
      return transaction(async (tx, trx) => {
        if (!(await tx.claim(link.id, clock.now()))) throw gone(what, param)
        return work(trx)
      })
    },

    /** Like useThen, for a setup link: every usable setup link of its workspace is used with it. */
    useSetupThen<T>(link: OneTimeLinkRow, param: string, work: (trx: Transaction) => Promise<T>): Promise<T> {
      return transaction(async (tx, trx) => {
        if (!(await tx.claimSetup(link.workspace_id, clock.now())).includes(link.id)) throw gone('setup code', param)
        return work(trx)
      })
    },
  }
}

export type OneTimeLinks = ReturnType<typeof createOneTimeLinks>
