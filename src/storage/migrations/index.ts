import * as createTokens from './0001-create-tokens.js'
import * as createDomains from './0002-create-domains.js'
import * as createLinks from './0003-create-links.js'
import * as createIdempotencyKeys from './0004-create-idempotency-keys.js'
import * as createConversations from './0005-create-conversations.js'
import * as createClicks from './0006-create-clicks.js'
import * as normalizeDestinations from './0007-normalize-destinations.js'
import * as verifyDomains from './0008-verify-domains.js'
import * as tombstoneLinks from './0009-tombstone-links.js'
import * as createWebhooks from './0010-create-webhooks.js'
import * as linkControls from './0011-link-controls.js'
import * as createSessions from './0012-create-sessions.js'
import * as clickJournal from './0013-click-journal.js'
import * as compactDayFacets from './0014-compact-day-facets.js'
import * as hourFacetsInRollups from './0015-hour-facets-in-rollups.js'
import * as clickJournalMarks from './0016-click-journal-marks.js'
import * as clickBlocksByNumber from './0017-click-blocks-by-number.js'
import * as domainClaimsPerOwner from './0018-domain-claims-per-owner.js'
import * as accounts from './0019-accounts.js'
import * as linkListAnalytics from './0020-link-list-analytics.js'
import * as publicStatsAndMissingPaths from './0021-public-stats-and-missing-paths.js'
import * as workspaceClickRollups from './0022-workspace-click-rollups.js'
import * as linkTitles from './0023-link-titles.js'
import * as linkPreviews from './0024-link-previews.js'
import * as linkHealth from './0025-link-health.js'
import * as webhookBatches from './0026-webhook-batches.js'
import * as tokenExpiry from './0027-token-expiry.js'
import * as workspaceLogos from './0028-workspace-logos.js'
import * as packedClickBlocks from './0029-packed-click-blocks.js'
import * as searchIndexDeferred from './0030-search-index-deferred.js'

/** Every migration, in order. Forward-only; one set for SQLite and PostgreSQL. */
export const migrations = {
  '0001-create-tokens': createTokens,
  '0002-create-domains': createDomains,
  '0003-create-links': createLinks,
  '0004-create-idempotency-keys': createIdempotencyKeys,
  '0005-create-conversations': createConversations,
  '0006-create-clicks': createClicks,
  '0007-normalize-destinations': normalizeDestinations,
  '0008-verify-domains': verifyDomains,
  '0009-tombstone-links': tombstoneLinks,
  '0010-create-webhooks': createWebhooks,
  '0011-link-controls': linkControls,
  '0012-create-sessions': createSessions,
  '0013-click-journal': clickJournal,
  '0014-compact-day-facets': compactDayFacets,
  '0015-hour-facets-in-rollups': hourFacetsInRollups,
  '0016-click-journal-marks': clickJournalMarks,
  '0017-click-blocks-by-number': clickBlocksByNumber,
  '0018-domain-claims-per-owner': domainClaimsPerOwner,
  '0019-accounts': accounts,
  '0020-link-list-analytics': linkListAnalytics,
  '0021-public-stats-and-missing-paths': publicStatsAndMissingPaths,
  '0022-workspace-click-rollups': workspaceClickRollups,
  '0023-link-titles': linkTitles,
  '0024-link-previews': linkPreviews,
  '0025-link-health': linkHealth,
  '0026-webhook-batches': webhookBatches,
  '0027-token-expiry': tokenExpiry,
  '0028-workspace-logos': workspaceLogos,
  '0029-packed-click-blocks': packedClickBlocks,
  '0030-search-index-deferred': searchIndexDeferred,
}
