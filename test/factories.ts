/**
 * Small factories of rows and visits for repository and service tests: each returns a complete,
 * valid value whose fields a test overrides only where it matters, and inserts nothing it was not asked to.
 */
import { newId } from '../src/shared/ids.js'
import type { ClickSink, Visit } from '../src/stats/clicks.js'
import { blockClicks, type ExportedClick } from '../src/stats/stats.repository.js'
import { encodeVisits } from '../src/stats/visit-batch.js'
import type { Db } from '../src/storage/database.js'
import type { LinkRow } from '../src/links/links.table.js'
import type { Principal } from '../src/tokens/tokens.service.js'
import { SCOPES } from '../src/accounts/roles.js'

export const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'

let sequence = 0
/** A path no other factory call returns in this process. */
export const uniquePath = (prefix = 'f') => `/${prefix}-${++sequence}`

export function linkRow(overrides: Partial<LinkRow> = {}): LinkRow {
  const at = overrides.created_at ?? Date.UTC(2026, 0, 1)
  return {
    id: newId('lnk'),
    owner_id: 'alice',
    domain: 'localhost:8080',
    path: uniquePath(),
    destination: 'https://dest.example/',
    title: null,
    title_source: overrides.title === undefined || overrides.title === null ? null : 'user',
    created_at: at,
    updated_at: at,
    deleted_at: null,
    redirect_type: 302,
    expires_at: null,
    max_clicks: null,
    expired_url: null,
    password_hash: null,
    rules: null,
    public_stats: 0,
    preview: null,
    created_by_type: null,
    created_by_id: null,
    created_by_label: null,
    clicks: 0,
    last_clicked_at: null,
    health_status: 'unknown',
    health_http_status: null,
    health_checked_at: null,
    health_error: null,
    health_failures: 0,
    ...overrides,
  }
}

const withoutCreator = ({ created_by_type: _type, created_by_id: _id, created_by_label: _label, ...row }: LinkRowBefore0020) => row
const withoutHealth = ({
  health_status: _health,
  health_http_status: _httpStatus,
  health_checked_at: _checkedAt,
  health_error: _error,
  health_failures: _failures,
  ...row
}: LinkRow) => row
const withoutTitlesAndPreviews = ({ title_source: _source, preview: _preview, ...row }: LinkRowBefore0025) => row
const withoutLater = ({ clicks: _clicks, last_clicked_at: _last, public_stats: _public, ...row }: LinkRowBefore0023) => row

/** A link row as the releases before destination health stored it (before migration 0025). */
export type LinkRowBefore0025 = ReturnType<typeof withoutHealth>
export const linkRowBefore0025 = (overrides: Partial<LinkRow> = {}): LinkRowBefore0025 => withoutHealth(linkRow(overrides))

/** A link row as the releases before page titles stored it (before migration 0023; nor later columns). */
export type LinkRowBefore0023 = ReturnType<typeof withoutTitlesAndPreviews>
export const linkRowBefore0023 = (overrides: Partial<LinkRow> = {}): LinkRowBefore0023 => withoutTitlesAndPreviews(linkRowBefore0025(overrides))

/** A link row as the releases before the link list's counters stored it (before migration 0020; nor later columns). */
export type LinkRowBefore0020 = Omit<
  LinkRow,
  | 'clicks'
  | 'last_clicked_at'
  | 'public_stats'
  | 'title_source'
  | 'preview'
  | 'health_status'
  | 'health_http_status'
  | 'health_checked_at'
  | 'health_error'
  | 'health_failures'
>
export const linkRowBefore0020 = (overrides: Partial<LinkRow> = {}): LinkRowBefore0020 => withoutLater(linkRowBefore0023(overrides))

/** A link row as the releases before accounts stored it (before migration 0019): no creator columns. */
export const linkRowBefore0019 = (overrides: Partial<LinkRow> = {}) => withoutCreator(linkRowBefore0020(overrides))

/** Inserts a link row (no service rules: a fixture, as a migration or an import would leave it). */
export async function insertLink(db: Db, overrides: Partial<LinkRow> = {}): Promise<LinkRow> {
  const row = linkRow(overrides)
  await db.insertInto('links').values(row).execute()
  return row
}

/** A human visit (Chrome, no referrer) of `linkId` at `at`. */
export function visit(linkId: string, at: number, overrides: Partial<Visit> = {}): Visit {
  return { linkId, at, qr: false, head: false, ip: '192.0.2.1', userAgent: CHROME, referer: undefined, country: undefined, ...overrides }
}

/** A principal with every scope, for service calls without HTTP. */
export function principal(ownerId = 'alice'): Principal {
  const tokenId = newId('tok')
  return { ownerId, tokenId, scopes: new Set(SCOPES), role: 'owner', actor: { type: 'token', id: tokenId, label: 'test' } }
}

/** A link's recorded visits (its click blocks), oldest first. */
export async function recordedClicks(db: Db, linkId: string): Promise<ExportedClick[]> {
  const blocks = await db.selectFrom('click_blocks').select(['data', 'packed']).where('link_id', '=', linkId).orderBy('start_at').orderBy('id').execute()
  return blocks.flatMap((b) => blockClicks(b)).sort((a, b) => a.clickedAt - b.clickedAt)
}

/** Writes visits through a click sink and rolls them up: what a flush of the click buffer does. */
export async function writeAndRollUp(sink: ClickSink, visits: readonly Visit[]): Promise<void> {
  await sink.write(encodeVisits(visits))
  await sink.rollUp()
}
