// Generated from the server's OpenAPI document (/v1/openapi.json) by `npm run sdk`: do not edit.
// CI runs `npm run sdk -- --check`, which fails when this file differs from what the routes declare.
export interface paths {
  '/healthz': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The process is up
     * @description Answers 200 while the process runs, whatever the database's state: a liveness probe. No token needed; never logged below warn.
     */
    get: operations['getHealthz']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/readyz': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The database answers
     * @description Answers 200 while the database answers and takes writes, 503 while it does not (unreachable, a full disk): a readiness probe for a load balancer. No token needed.
     */
    get: operations['getReadyz']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/metrics': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Prometheus metrics
     * @description The process's metrics in the Prometheus text format: requests by route and status, redirects and their latency, visits recorded, dropped and waiting, webhook outcomes and backlog, Redis state. No token needed; restrict it at the proxy if it must stay private.
     */
    get: operations['getMetrics']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List your links, newest first
     * @description One page of the workspace's links (`limit` 1–100, default 20; `page` from 1), with `pagination.hasMore`. Filter with `query[domain]`, `query[path]`, `query[destination]`, `query[title]` (exact), `query[tag]` (repeatable: links carrying every tag), `query[health]` (`ok`, `broken`, `unknown`) and `q` (a case-insensitive substring of the title, path, destination or a tag); order with `sort=createdAt|clicks|lastClickedAt`, `-` for descending.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getLinks']
    put?: never
    /**
     * Create a link
     * @description Creates a short link to `destination` (an absolute http or https URL) on `domain` (a default domain or one of your verified custom domains) at `path` (random when omitted). A taken domain and path is 409; every invalid field is 400 with its `param`. Without a `title`, the destination page's title is fetched in the background and appears on the link shortly (`titleSource: page`). Send an `Idempotency-Key` to retry safely.
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postLinks']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/bulk': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Create up to 1000 links (at most 100 with a password); one result per item, in order (a bad item fails only itself)
     * @description Each item is validated and created on its own: the answer holds one `{ok, data | error}` per item, in the order sent, so one bad item never fails the others. At most 1000 items, 100 of them with a password (hashing is slow on purpose). Items without a `title` get their page's title in the background, as a single create does.
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postLinksBulk']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/bulk-delete': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delete up to 1000 links; one result per id, in order
     * @description Deletes each id as `DELETE /v1/links/{id}` would; an id that is not one of your links gets its own 404 result and the others still go.
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postLinksBulkDelete']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Retrieve a link
     * @description The link with its settings, click counts and `shortUrl`. Another workspace's link is 404, as an unknown one.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getLinksById']
    /**
     * Update a link (partial: only the fields sent change)
     * @description Changes the fields sent and nothing else; `null` clears an optional field. The redirect follows the change on the very next request, on every instance. A moved domain or path must be free (409 otherwise).
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    put: operations['putLinksById']
    post?: never
    /**
     * Delete a link, its statistics and its conversations
     * @description The redirect answers 404 at once and the domain and path are free again; statistics, recorded visits and the conversations attached to the link go with it (purged in the background).
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteLinksById']
    options?: never
    head?: never
    /**
     * Update a link (partial: only the fields sent change)
     * @description Changes the fields sent and nothing else; `null` clears an optional field. The redirect follows the change on the very next request, on every instance. A moved domain or path must be free (409 otherwise).
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    patch: operations['patchLinksById']
    trace?: never
  }
  '/v1/links/{id}/check': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Check the link's destination now; answers the link with its new health
     * @description Sends `HEAD` (then `GET` when HEAD is refused) to the destination now, as the background checks do, and records the verdict: `health.status` turns `ok` after a success and `broken` after the second failure in a row (then `link.broken` is sent). Answers 200 with the link whatever the verdict; a failure is in `health.error`. Another workspace's link is 404, as an unknown one.
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role).
     */
    post: operations['postLinksByIdCheck']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/{id}/stats': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * A link's click statistics: totals, time series and top-10 breakdowns, from hourly rollups
     * @description Day and month buckets, and from/to given as dates, are in the time zone `tz`. With `format=csv`, the same as a CSV download: `section,value,clicks` rows (totals, then each breakdown), then `timeseries,<start>,<clicks>` rows.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getLinksByIdStats']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/stats': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Statistics of your links together (all, or those of a domain, tags or ids), with the 10 most clicked
     * @description The link statistics' shape for every matching live link of yours together, plus `topLinks`. Filters combine: `domain`, `tag` (may repeat: links carrying every tag), `linkId` (may repeat, up to 100). An id or domain that is not yours matches nothing. uniqueVisitors is the sum over the links (a visitor of two links counts twice). Hours are not split: in a zone whose midnights fall within an hour (Asia/Kolkata), each hour counts in the bucket holding its start. `format=csv` as for one link, with `topLinks` rows.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getStats']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/public/links/{id}/stats': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * A link's statistics when its owner made them public (publicStats): as the owner's, without referrer hosts beyond the top 10; else 404
     * @description No token needed. Answers only for a link whose owner set `publicStats: true`; any other id, known or not, is the same 404. Cached for 15 seconds and counted against the anonymous rate limit.
     */
    get: operations['getPublicLinksByIdStats']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/stats/not-found': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The 50 most visited paths that name no link on your verified domains (the bootstrap workspace: the default domains too), human visits per path
     * @description Counts people's visits (bots left out) to paths that match no link, per domain and path, over `from`–`to`: typos on printed material, links deleted too early. Each instance keeps at most 10,000 paths an hour; the rest are counted as `(other)`.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getStatsNotFound']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/export': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Export every link of yours (the list's filters apply), streamed as CSV or NDJSON
     * @description Streams every link the filters select (`format=csv|ndjson`), without paging; CSV cells that a spreadsheet would run as a formula are prefixed with `'`. The result imports back with the import command.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getLinksExport']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/{id}/clicks': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * A link's recorded visits within the retention period, oldest first, streamed as CSV or NDJSON (never an IP)
     * @description One row per recorded visit between `from` and `to` within the retention period: time, referrer host, browser, OS, device, country, language, UTM fields, bot or human, QR scan. Addresses are never stored, so never exported.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getLinksByIdClicks']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/{id}/qr': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * A link's QR code (PNG or SVG), cacheable with ETag / If-None-Match
     * @description Encodes the short URL with a `qr=1` marker, so that scans are counted apart (the redirect strips the marker). `size` 64–4096 px, `margin` 0–32 modules, `ecc` L|M|Q|H, `color` and `background` as `#rrggbb`; `download=1` adds a file name. Large codes are drawn off the event loop.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getLinksByIdQr']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/links/import': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Import links from a file: Linkline CSV or NDJSON, Bitly, Shlink, Kutt or YOURLS; one result per row
     * @description The body is the file's text (at most 5 MiB), as `linkline links import` reads it: the format is told from its start unless `format` names it. Each row is checked as `POST /v1/links` checks a body and stands alone: a bad row fails with its line and reason, the others import. Safe to send again: a row whose link is already there (same domain, path, destination and title) is skipped. `dryRun=true` runs every check and writes nothing. A file that is not of the format named, or whose format cannot be told, is 400 on `format`.
     *
     *     Needs the `links:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postLinksImport']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/workspace/logo': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The workspace's logo for QR codes, as uploaded (404 when there is none)
     * @description The image with its own Content-Type and an ETag (`If-None-Match` answers 304). Served with a Content-Security-Policy that lets nothing run, should an SVG be opened on its own.
     *
     *     Needs the `links:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getWorkspaceLogo']
    /**
     * Upload or replace the workspace's logo for QR codes (a PNG or an SVG, at most 100 KB)
     * @description The body is the image itself, with `Content-Type: image/png` or `image/svg+xml` (another type is 415, a larger body 413). A PNG must decode and be at most 1024×1024 pixels; an SVG must be one `<svg>` document in the SVG namespace with nothing that runs or loads (refused, never cleaned: 400 `logo`). Codes ask for it with `logo=1`.
     *
     *     Needs the `domains:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    put: operations['putWorkspaceLogo']
    post?: never
    /**
     * Remove the workspace's logo (404 when there is none)
     * @description Codes asked for with `logo=1` are then refused (400 `logo`); codes without it are unchanged.
     *
     *     Needs the `domains:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteWorkspaceLogo']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/conversations': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List your conversations, most recently active first
     * @description Ordered by last activity (or creation), newest first; `limit` 1–100 (default 10) with `starting_after` or `ending_before` cursors. Filter with `muted`, `archived`, `pinned` (`true` only those, `false` only the others), `contact_id`, `group_id` and `link_id`. The answer is `{has_more, data}`.
     *
     *     Needs the `conversations:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getConversations']
    put?: never
    /**
     * Get or create the conversation with a contact or a group (201 created, 200 existing)
     * @description There is one conversation per contact or group: asking again returns the existing one with 200 and creates nothing. Exactly one of `contact_id` and `group_id`; `link_id`, when sent, must be one of your links (404 otherwise) and ties the conversation to it.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postConversations']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/conversations/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Retrieve a conversation (changes nothing)
     * @description Reading never moves `last_opened_at`; mark a conversation read with `POST /v1/conversations/{id}/open`. Timestamps are Unix seconds.
     *
     *     Needs the `conversations:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getConversationsById']
    /**
     * Update a conversation (partial): pin, mute, archive or restore, pinned message
     * @description Send any of `is_pinned`, `is_muted`, `archived_at` (a Unix time archives, `null` restores) and `pinned_message_id` (a message of this conversation; `null` unpins). Fields not sent stay as they are.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    put: operations['putConversationsById']
    post?: never
    /**
     * Delete a conversation and its messages
     * @description Permanent: the conversation and every message in it go.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteConversationsById']
    options?: never
    head?: never
    /**
     * Update a conversation (partial): pin, mute, archive or restore, pinned message
     * @description Send any of `is_pinned`, `is_muted`, `archived_at` (a Unix time archives, `null` restores) and `pinned_message_id` (a message of this conversation; `null` unpins). Fields not sent stay as they are.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    patch: operations['patchConversationsById']
    trace?: never
  }
  '/v1/conversations/{id}/open': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Mark a conversation opened now (last_opened_at never moves back)
     * @description Sets `last_opened_at` to now: a conversation whose `last_active_at` is later has unread messages.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postConversationsByIdOpen']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/conversations/{id}/messages': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a conversation's messages, newest first
     * @description `limit` 1–100 (default 10) with `starting_after` or `ending_before` cursors; the answer is `{has_more, data}`.
     *
     *     Needs the `conversations:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getConversationsByIdMessages']
    put?: never
    /**
     * Add a message (moves the conversation's last_active_at)
     * @description `text` of 1–4000 characters; `direction` is `outbound` (sent by you, the default) or `inbound` (received). The conversation's `last_active_at` becomes the message's time.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postConversationsByIdMessages']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/conversations/{id}/messages/{message_id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Retrieve a message
     * @description One message of the conversation; a message of another conversation is 404.
     *
     *     Needs the `conversations:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getConversationsByIdMessagesByMessageId']
    put?: never
    post?: never
    /**
     * Delete a message (unpins it if it was the pinned message)
     * @description Permanent. When the message was the conversation's pinned message, `pinned_message_id` becomes `null`.
     *
     *     Needs the `conversations:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteConversationsByIdMessagesByMessageId']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/domains': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The default domains and your custom domains
     * @description Every domain your links may use: the server's default domains (`isDefault: true`, always verified) and your custom domains with their `status` and the DNS TXT record that verifies them.
     *
     *     Needs the `domains:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getDomains']
    put?: never
    /**
     * Claim a custom domain (pending until its DNS TXT record is found); 200 renews your own pending claim
     * @description The answer holds the TXT record to publish (`_linkline.<name>`). Until it is found the domain is `pending`: it takes no link and serves no redirect. It is looked up periodically and on `POST /v1/domains/{name}/verify`. A name another workspace verified is 409; an IP address, a default or reserved host is 400.
     *
     *     Needs the `domains:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postDomains']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/domains/{name}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * One of your custom domains, with its verification record
     * @description Its `status`, when it was verified, and the TXT record that verifies it. Another workspace's domain is 404.
     *
     *     Needs the `domains:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getDomainsByName']
    put?: never
    post?: never
    /**
     * Release a custom domain (409 while links use it)
     * @description Move or delete its links first: a domain that links still use is 409.
     *
     *     Needs the `domains:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteDomainsByName']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/domains/{name}/verify': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Look the verification TXT record up now
     * @description Looks `_linkline.<name>` up at once instead of waiting for the periodic check; answers the domain with its `status`, verified once the record holds the expected value.
     *
     *     Needs the `domains:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postDomainsByNameVerify']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/sessions': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Sign in with an email and password, or an API token: sets the dashboard session cookie
     * @description Sets the `linkline_session` cookie (HttpOnly) that the dashboard uses. Wrong credentials are 401 with one message, whichever field was wrong; password checks are paced, and repeated failures are answered 429.
     */
    post: operations['postSessions']
    /**
     * Sign out everywhere: every session of this person (or of this request's token)
     * @description Ends every dashboard session of the signed-in person, on every device; API tokens keep working (revoke them under tokens).
     *
     *     Recorded in the audit log.
     */
    delete: operations['deleteSessions']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/sessions/current': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Who is calling: workspace, scopes and how the request authenticated
     * @description What the dashboard reads at start: the workspace, the scopes granted, and whether the request came with a session cookie or a token.
     */
    get: operations['getSessionsCurrent']
    /**
     * Switch the signed-in person's session to another of their workspaces
     * @description Send `workspaceId`, one of the workspaces in `GET /v1/me`; the session's role and scopes become those of that workspace.
     *
     *     Recorded in the audit log.
     */
    put: operations['putSessionsCurrent']
    post?: never
    /**
     * Sign out: end this session
     * @description Ends the session of this cookie and clears it; other devices stay signed in.
     *
     *     Recorded in the audit log.
     */
    delete: operations['deleteSessionsCurrent']
    options?: never
    head?: never
    /**
     * Switch the signed-in person's session to another of their workspaces
     * @description Send `workspaceId`, one of the workspaces in `GET /v1/me`; the session's role and scopes become those of that workspace.
     *
     *     Recorded in the audit log.
     */
    patch: operations['patchSessionsCurrent']
    trace?: never
  }
  '/v1/auth/methods': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * How people sign in here: with a password, and with single sign-on (its name and where its button leads)
     * @description No token needed: the sign-in page reads it to show the password form and the single sign-on button that are enabled on this server.
     */
    get: operations['getAuthMethods']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/me': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Who is calling: the person (if any), the workspace, scopes and role, and every workspace they belong to
     * @description For a person: their name, email, role here and every workspace they belong to. For an API token: the workspace and the token's scopes (no person).
     */
    get: operations['getMe']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/members': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The workspace's members and their roles
     * @description Every member with their role: `owner`, `admin`, `member` or `viewer`.
     *
     *     Needs the `members:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getMembers']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/members/{userId}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    /**
     * Change a member's role (only an owner grants or takes owner; the last owner stays)
     * @description Send `role`. An admin manages members and viewers; only an owner makes or unmakes an owner, and the last owner cannot be demoted (409).
     *
     *     Needs the `members:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    put: operations['putMembersByUserId']
    post?: never
    /**
     * Remove a member: their sessions here end and the tokens they made are revoked
     * @description The person keeps their account and other workspaces. The last owner cannot be removed (409).
     *
     *     Needs the `members:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteMembersByUserId']
    options?: never
    head?: never
    /**
     * Change a member's role (only an owner grants or takes owner; the last owner stays)
     * @description Send `role`. An admin manages members and viewers; only an owner makes or unmakes an owner, and the last owner cannot be demoted (409).
     *
     *     Needs the `members:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    patch: operations['patchMembersByUserId']
    trace?: never
  }
  '/v1/audit-log': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The workspace's audit log, newest first (cursor: starting_after): every change made through the API, and sign-ins; kept 90 days
     * @description Who did what and when: each entry names the actor (person or token), the action (`link.created`, `member.role_changed`, `session.failed`…), the resource and the request's address. Filter by `action`, `actorId` or `resourceType`.
     *
     *     Needs the `audit:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getAuditLog']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/invitations': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Invitations that can still be accepted (never their link)
     * @description Pending invitations with their email, role, inviter and expiry; accepted, revoked and expired ones are not listed.
     *
     *     Needs the `members:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getInvitations']
    put?: never
    /**
     * Invite a person to this workspace: a one-time link, valid 7 days, shown only in this response
     * @description Send `email` and `role`. The answer carries the invitation link once (only a hash is kept); it is also mailed when mail is configured. A new invitation to the same email replaces the pending one.
     *
     *     Needs the `members:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postInvitations']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/invitations/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * Revoke a pending invitation: its link stops working
     * @description Its link stops working at once; an invitation already used or expired is 404.
     *
     *     Needs the `members:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteInvitationsById']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/invitations/accept': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Accept an invitation and sign in: create an account (secret, name, password), or join signed in (secret alone)
     * @description No token needed: the secret is the credential. A new person sends a name and a password; a person already signed in sends the secret alone and the workspace is added to theirs. A used, revoked or expired secret is 410.
     */
    post: operations['postInvitationsAccept']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/members/{userId}/password-reset': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * A one-time link (1 hour) that sets a member's new password; only an owner makes one for an owner
     * @description The answer carries the link once; hand it to the member. It works once, for an hour.
     *
     *     Needs the `members:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postMembersByUserIdPasswordReset']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/password-reset': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Set a new password with a reset link's secret: every session of that person ends
     * @description No token needed: the secret is the credential. The new password needs at least 10 characters; the person is signed out everywhere and signs in again.
     */
    post: operations['postPasswordReset']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/me/password': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Change your password (signed in): your other sessions end
     * @description Send the current and the new password; this session stays signed in, every other one ends.
     *
     *     Recorded in the audit log.
     */
    post: operations['postMePassword']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/setup': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Create the first owner of a new server's workspace with the setup code it printed, and sign in
     * @description Works once, for a workspace that has no member yet, with the setup code the server printed at start; afterwards the code is 410.
     */
    post: operations['postSetup']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/tokens': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Your active tokens (never the tokens themselves)
     * @description Each token's name, scopes, creation and last use, and the first characters that identify it; the token itself is shown only when it is created.
     *
     *     Needs the `tokens:write` scope (a token's, or the signed-in member's role).
     */
    get: operations['getTokens']
    put?: never
    /**
     * Create a token (shown in this response only) with at most your scopes
     * @description Send a `name` and the `scopes` it needs (a subset of yours). Store the token from this answer: only its hash is kept.
     *
     *     Needs the `tokens:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postTokens']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/tokens/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * Revoke a token: it and its sessions stop working at once
     * @description Requests with the token are 401 from the next one on, on every instance.
     *
     *     Needs the `tokens:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteTokensById']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Your webhook endpoints, newest first
     * @description Each endpoint's URL, events, whether it is enabled and why it was disabled; never the secret.
     *
     *     Needs the `webhooks:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getWebhooks']
    put?: never
    /**
     * Add a webhook endpoint (its signing secret is in this response only)
     * @description Send the receiver's https `url` and the `events` it wants. Deliveries are signed (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`) with the secret in this answer, retried with growing delays for about a day, and never sent to private or loopback addresses.
     *
     *     Needs the `webhooks:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postWebhooks']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Retrieve a webhook endpoint
     * @description Its URL, events and state; never the secret. Another workspace's endpoint is 404.
     *
     *     Needs the `webhooks:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getWebhooksById']
    /**
     * Update a webhook endpoint (partial); enabled: true resumes a disabled one
     * @description Change `url`, `events`, `description` or `enabled`. An endpoint the service disabled (every attempt failed for about a day) resumes with `enabled: true`.
     *
     *     Needs the `webhooks:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    put: operations['putWebhooksById']
    post?: never
    /**
     * Delete a webhook endpoint and its delivery log
     * @description No delivery is attempted after this, including retries already scheduled.
     *
     *     Needs the `webhooks:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    delete: operations['deleteWebhooksById']
    options?: never
    head?: never
    /**
     * Update a webhook endpoint (partial); enabled: true resumes a disabled one
     * @description Change `url`, `events`, `description` or `enabled`. An endpoint the service disabled (every attempt failed for about a day) resumes with `enabled: true`.
     *
     *     Needs the `webhooks:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    patch: operations['patchWebhooksById']
    trace?: never
  }
  '/v1/webhooks/{id}/deliveries': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The delivery log of an endpoint, newest first (cursor: starting_after)
     * @description Each delivery's event, status (`pending`, `delivered`, `failed`), attempts, last HTTP status, last error and the start of the receiver's answer.
     *
     *     Needs the `webhooks:read` scope (a token's, or the signed-in member's role).
     */
    get: operations['getWebhooksByIdDeliveries']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks/{id}/test': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Send a webhook.test event to this endpoint
     * @description Queues one signed `webhook.test` delivery now, to check the receiver and its signature check; it appears in the delivery log like any other.
     *
     *     Needs the `webhooks:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postWebhooksByIdTest']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks/{id}/deliveries/{delivery_id}/retry': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Replay a delivery: a fresh round of attempts, starting now
     * @description Answers 202 and sends the same body again (same `webhook-id`, so a receiver that already has it can drop it), with a full set of retries.
     *
     *     Needs the `webhooks:write` scope (a token's, or the signed-in member's role). Recorded in the audit log.
     */
    post: operations['postWebhooksByIdDeliveriesByDeliveryIdRetry']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
}
export type webhooks = Record<string, never>
export interface components {
  schemas: {
    /** @description The one error shape of every endpoint */
    ErrorBody: {
      /** @enum {boolean} */
      success: false
      error: {
        /** @example not_found */
        code: string
        /** @example no such link */
        message: string
        /** @description The parameter at fault, or null */
        param: string | null
      }
    }
    Link: {
      /** @example lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
      id: string
      title: string | null
      titleSource: ('page' | 'user') | null
      /** @example go.acme.example */
      domain: string
      /** @example /summer */
      path: string
      /** @example https://shop.acme.example/summer?utm_source=poster */
      destination: string
      /** @example https://go.acme.example/summer */
      shortUrl: string
      /** Format: date-time */
      createdAt: string
      createdBy: {
        type: 'user' | 'token'
        /**
         * @description usr_… or tok_…
         * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
         */
        id: string
        /**
         * @description the person's email or the token's name, as it was then
         * @example ada@example.com
         */
        label: string
      } | null
      /** Format: date-time */
      updatedAt: string
      /** @example acme */
      ownerId: string
      /** @enum {string} */
      schemaVersion: '1'
      /** @enum {integer} */
      redirectType: 301 | 302 | 307 | 308
      expiresAt: string | null
      maxClicks: number | null
      expiredUrl: string | null
      hasPassword: boolean
      rules:
        | {
            /** @description Every condition given must match (any of its values); an empty object matches every visit */
            when: {
              device?: ('ios' | 'android' | 'mobile' | 'tablet' | 'desktop')[]
              os?: string[]
              country?: string[]
              language?: string[]
            }
            /**
             * @description Absolute http or https URL
             * @example https://shop.example/summer?ref=qr
             */
            destination: string
          }[]
        | null
      tags: string[]
      publicStats: boolean
      preview: {
        title: string | null
        description: string | null
        image: string | null
      } | null
      /** @description Human clicks, all time, as the statistics count them: a visit is here once rolled up (within 15 s) */
      clicks: number
      lastClickedAt: string | null
      /** @description Destination health, checked in the background and by POST /v1/links/{id}/check */
      health: {
        /**
         * @description unknown before a verdict; broken after two failed checks in a row; ok again after one success
         * @enum {string}
         */
        status: 'unknown' | 'ok' | 'broken'
        httpStatus: number | null
        checkedAt: string | null
        error: string | null
      }
    }
    Domain: {
      /**
       * @description host[:port], lower case, IDN in punycode, default ports dropped
       * @example go.acme.example
       */
      name: string
      isDefault: boolean
      /** @description a pending domain serves no redirect and takes no link until its TXT record is found; default domains are verified */
      status: 'pending' | 'verified'
      /**
       * @description your links on this domain (deleted links not counted)
       * @example 12
       */
      linkCount: number
      createdAt: string | null
      createdBy: {
        type: 'user' | 'token'
        /**
         * @description usr_… or tok_…
         * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
         */
        id: string
        /**
         * @description the person's email or the token's name, as it was then
         * @example ada@example.com
         */
        label: string
      } | null
      verifiedAt: string | null
      lastCheckedAt: string | null
      verification: {
        /** @enum {string} */
        type: 'dns-txt'
        /**
         * @description the TXT record to publish: _linkline.<host name, without port>
         * @example _linkline.go.acme.example
         */
        name: string
        /** @example linkline-verify=3f9c2a7e1b5d4c8e9a0f6b2d7c1e5a3b */
        value: string
      } | null
    }
    Conversation: {
      /** @example conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
      id: string
      contact_id: string | null
      group_id: string | null
      link_id: string | null
      pinned_message_id: string | null
      is_pinned: boolean
      is_muted: boolean
      last_active_at: number | null
      last_opened_at: number | null
      /** @description Unix seconds */
      created_at: number
      archived_at: number | null
    }
    Message: {
      /** @example msg_01JDQ80A1B2C3D4E5F6G7H8J9K */
      id: string
      /** @example conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
      conversation_id: string
      /** @enum {string} */
      direction: 'outbound' | 'inbound'
      /** @example Your order has shipped. */
      text: string
      /** @description Unix seconds */
      created_at: number
    }
    LinkStats: {
      /** @example lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
      linkId: string
      /** Format: date-time */
      from: string
      /**
       * Format: date-time
       * @description Exclusive
       */
      to: string
      /** @enum {string} */
      interval: 'hour' | 'day' | 'month'
      /**
       * @description The time zone of the day and month buckets, as canonically named
       * @example Europe/Berlin
       */
      tz: string
      /** @description humanClicks + botClicks */
      totalClicks: number
      humanClicks: number
      botClicks: number
      /** @description Human visits through the QR code */
      qrScans: number
      /** @description Sum over UTC days of the distinct human visitors of each day */
      uniqueVisitors: number
      lastClickedAt: string | null
      timeseries: {
        /** Format: date-time */
        start: string
        clicks: number
      }[]
      /** @description The Referer's host name, lower-cased; `direct` without one. Top 10 values by human clicks; an 11th row "other" sums the rest */
      referrers: {
        /** @example news.ycombinator.com */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The browser named by the User-Agent. Top 10 values by human clicks; an 11th row "other" sums the rest */
      browsers: {
        /** @example Chrome */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The operating system named by the User-Agent. Top 10 values by human clicks; an 11th row "other" sums the rest */
      os: {
        /** @example iOS */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The device type named by the User-Agent (a browser without one is a desktop). Top 10 values by human clicks; an 11th row "other" sums the rest */
      devices: {
        /** @example mobile */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description ISO 3166-1 alpha-2 code: the trusted country header's, else the client address's in the IP database. Top 10 values by human clicks; an 11th row "other" sums the rest */
      countries: {
        /** @example DE */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The first Accept-Language tag, lower-cased, as language or language-region (`fr-ch`; a script is left out). Top 10 values by human clicks; an 11th row "other" sums the rest */
      languages: {
        /** @example de-at */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description utm_source of the final destination's query (the visit's query merged in). Top 10 values by human clicks; an 11th row "other" sums the rest */
      utmSources: {
        /** @example newsletter */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description utm_medium of the final destination's query (the visit's query merged in). Top 10 values by human clicks; an 11th row "other" sums the rest */
      utmMediums: {
        /** @example email */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description utm_campaign of the final destination's query (the visit's query merged in). Top 10 values by human clicks; an 11th row "other" sums the rest */
      utmCampaigns: {
        /** @example summer-sale */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description "City, CC" from a city database (LINKLINE_GEOIP_DB); empty without one, and visits recorded without one are left out. Top 10 values by human clicks; an 11th row "other" sums the rest */
      cities: {
        /** @example Berlin, DE */
        value: string
        /** @example 42 */
        clicks: number
      }[]
    }
    MissingPath: {
      /** @example go.acme.example */
      domain: string
      /**
       * @description As visited (one trailing slash dropped, at most 129 characters); "(other)" sums the paths beyond the hourly bound
       * @example /summer-sael
       */
      path: string
      /** @description Human visits in the range */
      clicks: number
      /**
       * Format: date-time
       * @description The latest of them
       */
      lastAt: string
    }
    StatsOverview: {
      /** Format: date-time */
      from: string
      /**
       * Format: date-time
       * @description Exclusive
       */
      to: string
      /** @enum {string} */
      interval: 'hour' | 'day' | 'month'
      /**
       * @description The time zone of the day and month buckets, as canonically named
       * @example Europe/Berlin
       */
      tz: string
      /** @description humanClicks + botClicks */
      totalClicks: number
      humanClicks: number
      botClicks: number
      /** @description Human visits through the QR code */
      qrScans: number
      /** @description Sum over UTC days of the distinct human visitors of each day */
      uniqueVisitors: number
      lastClickedAt: string | null
      timeseries: {
        /** Format: date-time */
        start: string
        clicks: number
      }[]
      /** @description The Referer's host name, lower-cased; `direct` without one. Top 10 values by human clicks; an 11th row "other" sums the rest */
      referrers: {
        /** @example news.ycombinator.com */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The browser named by the User-Agent. Top 10 values by human clicks; an 11th row "other" sums the rest */
      browsers: {
        /** @example Chrome */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The operating system named by the User-Agent. Top 10 values by human clicks; an 11th row "other" sums the rest */
      os: {
        /** @example iOS */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The device type named by the User-Agent (a browser without one is a desktop). Top 10 values by human clicks; an 11th row "other" sums the rest */
      devices: {
        /** @example mobile */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description ISO 3166-1 alpha-2 code: the trusted country header's, else the client address's in the IP database. Top 10 values by human clicks; an 11th row "other" sums the rest */
      countries: {
        /** @example DE */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The first Accept-Language tag, lower-cased, as language or language-region (`fr-ch`; a script is left out). Top 10 values by human clicks; an 11th row "other" sums the rest */
      languages: {
        /** @example de-at */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description utm_source of the final destination's query (the visit's query merged in). Top 10 values by human clicks; an 11th row "other" sums the rest */
      utmSources: {
        /** @example newsletter */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description utm_medium of the final destination's query (the visit's query merged in). Top 10 values by human clicks; an 11th row "other" sums the rest */
      utmMediums: {
        /** @example email */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description utm_campaign of the final destination's query (the visit's query merged in). Top 10 values by human clicks; an 11th row "other" sums the rest */
      utmCampaigns: {
        /** @example summer-sale */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description "City, CC" from a city database (LINKLINE_GEOIP_DB); empty without one, and visits recorded without one are left out. Top 10 values by human clicks; an 11th row "other" sums the rest */
      cities: {
        /** @example Berlin, DE */
        value: string
        /** @example 42 */
        clicks: number
      }[]
      /** @description The filters as applied (duplicates dropped) */
      filters: {
        domain: string | null
        /** @description Links carrying all of these; empty: any */
        tag: string[]
        /** @description Links among these; empty: every link */
        linkId: string[]
      }
      /** @description The 10 matching links with the most human clicks in the range, most first (ties by id) */
      topLinks: {
        /** @example lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
        linkId: string
        /** @example go.acme.example */
        domain: string
        /** @example /summer */
        path: string
        title: string | null
        /** @description Human clicks in the range */
        clicks: number
      }[]
    }
    Session: {
      /**
       * @description the workspace acted in
       * @example acme
       */
      ownerId: string
      scopes: string[]
      tokenId: string | null
      userId: string | null
      /** @description how this request authenticated */
      via: 'session' | 'bearer'
    }
    User: {
      /**
       * @description usr_…
       * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
       */
      id: string
      /** @example ada@example.com */
      email: string
      /** @example Ada Lovelace */
      name: string
      /** Format: date-time */
      createdAt: string
      lastSignInAt: string | null
    }
    Me: {
      user: components['schemas']['User'] | null
      principal: {
        /** @example acme */
        workspaceId: string
        scopes: string[]
        /**
         * @description viewer < member < admin < owner, each holding the scopes of the one before
         * @enum {string}
         */
        role: 'viewer' | 'member' | 'admin' | 'owner'
        /** @description a session cookie, or a bearer token */
        via: 'session' | 'token'
      }
      memberships: {
        /** @example acme */
        workspaceId: string
        /** @example Acme */
        workspaceName: string
        /**
         * @description viewer < member < admin < owner, each holding the scopes of the one before
         * @enum {string}
         */
        role: 'viewer' | 'member' | 'admin' | 'owner'
      }[]
    }
    Member: {
      /** @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0 */
      userId: string
      /** @example ada@example.com */
      email: string
      /** @example Ada Lovelace */
      name: string
      /**
       * @description viewer < member < admin < owner, each holding the scopes of the one before
       * @enum {string}
       */
      role: 'viewer' | 'member' | 'admin' | 'owner'
      /**
       * Format: date-time
       * @description when they joined this workspace
       */
      createdAt: string
      lastSignInAt: string | null
    }
    Invitation: {
      /**
       * @description inv_…
       * @example inv_01JDQ8B1C2D3E4F5G6H7J8K9M0
       */
      id: string
      /** @example grace@example.com */
      email: string
      /**
       * @description viewer < member < admin < owner, each holding the scopes of the one before
       * @enum {string}
       */
      role: 'viewer' | 'member' | 'admin' | 'owner'
      /** @example acme */
      workspaceId: string
      /** Format: date-time */
      createdAt: string
      createdBy: {
        type: 'user' | 'token'
        /**
         * @description usr_… or tok_…
         * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
         */
        id: string
        /**
         * @description the person's email or the token's name, as it was then
         * @example ada@example.com
         */
        label: string
      } | null
      /**
       * Format: date-time
       * @description seven days after it was made
       */
      expiresAt: string
      /**
       * @description the one-time link to /app/invite/<secret>: in the response that creates it, and never again (only a hash is stored)
       * @example https://links.acme.example/app/invite/hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs
       */
      url?: string
    }
    Token: {
      /** @example tok_01JDQ6A1B2C3D4E5F6G7H8J9K0 */
      id: string
      name: string | null
      /** @example acme */
      ownerId: string
      scopes: string[]
      /**
       * @description the first characters of the token, not a secret: enough to recognise it
       * @example ll_Hk3v9Q
       */
      prefix: string
      /** Format: date-time */
      createdAt: string
      createdBy: {
        type: 'user' | 'token'
        /**
         * @description usr_… or tok_…
         * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
         */
        id: string
        /**
         * @description the person's email or the token's name, as it was then
         * @example ada@example.com
         */
        label: string
      } | null
      lastUsedAt: string | null
      expiresAt: string | null
      /** @description in lists: whether this is the token making the request (or behind its session) */
      current?: boolean
      /**
       * @description the token itself: in the response that creates it, and never again
       * @example ll_Hk3v9Qp2Xr7Lm4Tz8Wc1Nb6Ys0Ud5Fe3GaK2jR8wP0v
       */
      token?: string
    }
    Webhook: {
      /** @example whk_01JDQ8C1D2E3F4G5H6J7K8M9N0 */
      id: string
      /** @example https://hooks.acme.example/linkline */
      url: string
      events: string[]
      description: string | null
      batch: {
        /**
         * @description the most events in one delivery
         * @example 500
         */
        maxEvents: number
        /**
         * @description how long the first event of a delivery may wait for others
         * @example 1000
         */
        maxWaitMs: number
      } | null
      enabled: boolean
      disabledReason: string | null
      /** Format: date-time */
      createdAt: string
      /** Format: date-time */
      updatedAt: string
      createdBy: {
        type: 'user' | 'token'
        /**
         * @description usr_… or tok_…
         * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
         */
        id: string
        /**
         * @description the person's email or the token's name, as it was then
         * @example ada@example.com
         */
        label: string
      } | null
    }
    WebhookDelivery: {
      /** @example dlv_01JDQ8D1E2F3G4H5J6K7M8N9P0 */
      id: string
      /**
       * @description the webhook-id header: the same on every attempt
       * @example evt_01JDQ8E1F2G3H4J5K6M7N8P9Q0
       */
      eventId: string
      /** @example link.created */
      eventType: string
      /** @enum {string} */
      status: 'pending' | 'delivered' | 'failed'
      delivered: boolean
      attempts: number
      lastStatusCode: number | null
      lastError: string | null
      responseExcerpt: string | null
      lastAttemptAt: string | null
      nextAttemptAt: string | null
      /** Format: date-time */
      createdAt: string
      deliveredAt: string | null
    }
    /** @description One change made through the API, or a sign-in */
    AuditEntry: {
      /**
       * @description aud_…; ids are time-ordered
       * @example aud_01JDQ8F1G2H3J4K5M6N7P8Q9R0
       */
      id: string
      /** Format: date-time */
      at: string
      /** @description who did it */
      actor: {
        type: 'user' | 'token'
        /**
         * @description usr_… or tok_…
         * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
         */
        id: string
        /**
         * @description the person's email or the token's name, as it was then
         * @example ada@example.com
         */
        label: string
      }
      /**
       * @description <resourceType>.<verb>: link.created, member.role_changed, session.failed…
       * @example link.created
       */
      action: string
      /** @example link */
      resourceType: string
      resourceId: string | null
      /** @example acme */
      workspaceId: string
    }
  }
  responses: never
  parameters: never
  requestBodies: never
  headers: never
  pathItems: never
}
export type $defs = Record<string, never>
export interface operations {
  getHealthz: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @example ok */
            status: string
          }
        }
      }
    }
  }
  getReadyz: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @example ok */
            status: string
          }
        }
      }
    }
  }
  getMetrics: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  getLinks: {
    parameters: {
      query?: {
        limit?: number
        page?: number
        /** @description The order: createdAt, clicks or lastClickedAt, ascending, or descending with a - before it; ties by id. Links never clicked come last either way */
        sort?: 'createdAt' | '-createdAt' | 'clicks' | '-clicks' | 'lastClickedAt' | '-lastClickedAt'
        /**
         * @description Links whose title, path, destination or a tag holds this text, ignoring case (ASCII letters on SQLite); % and _ are plain characters. Empty: every link
         * @example sale
         */
        q?: string
        /** @description Exact-match filters, combined with AND: query[title]=Sale, query[tag]=promo, or JSON: query={"title":"Sale"} */
        query?: {
          domain?: string
          path?: string
          destination?: string
          title?: string
          /** @description Links carrying every tag given: repeat it (query[tag]=promo&query[tag]=summer), or one value for one tag */
          tag?: string[]
          /**
           * @description Links whose destination health is this: query[health]=broken
           * @enum {string}
           */
          health?: 'unknown' | 'ok' | 'broken'
        }
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Link'][]
            pagination: {
              page: number
              limit: number
              hasMore: boolean
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postLinks: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "destination": "https://shop.example/summer?ref=qr",
         *       "title": "Summer sale"
         *     }
         */
        'application/json': {
          /**
           * @description Absolute http or https URL
           * @example https://shop.example/summer?ref=qr
           */
          destination: string
          /** @description A default domain or one of your custom domains */
          domain?: string
          /** @description Case-sensitive; omitted: 7 random base62 characters */
          path?: string
          title?: string | null
          /**
           * @description Status of the redirect; default 302
           * @enum {integer}
           */
          redirectType?: 301 | 302 | 307 | 308
          expiresAt?: string | null
          maxClicks?: number | null
          expiredUrl?: string | null
          password?: string | null
          rules?:
            | {
                /** @description Every condition given must match (any of its values); an empty object matches every visit */
                when: {
                  device?: ('ios' | 'android' | 'mobile' | 'tablet' | 'desktop')[]
                  os?: string[]
                  country?: string[]
                  language?: string[]
                }
                /**
                 * @description Absolute http or https URL
                 * @example https://shop.example/summer?ref=qr
                 */
                destination: string
              }[]
            | null
          /** @description Duplicates are dropped; returned sorted. On update, the list replaces the old one */
          tags?: string[]
          /** @description Anyone may read the statistics, without signing in: GET /v1/public/links/{id}/stats, the page /app/public/{id}, reached by the short URL followed by +; default false */
          publicStats?: boolean
          preview?: {
            title?: string | null
            description?: string | null
            image?: string | null
          } | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Link']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postLinksBulk: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "links": [
         *         {
         *           "destination": "https://shop.example/summer",
         *           "tags": [
         *             "summer"
         *           ]
         *         },
         *         {
         *           "destination": "https://shop.example/autumn",
         *           "redirectType": 301
         *         }
         *       ]
         *     }
         */
        'application/json': {
          /** @description 1-1000 link bodies; each stands alone */
          links: {
            /**
             * @description Absolute http or https URL
             * @example https://shop.example/summer?ref=qr
             */
            destination: string
            /** @description A default domain or one of your custom domains */
            domain?: string
            /** @description Case-sensitive; omitted: 7 random base62 characters */
            path?: string
            title?: string | null
            /**
             * @description Status of the redirect; default 302
             * @enum {integer}
             */
            redirectType?: 301 | 302 | 307 | 308
            expiresAt?: string | null
            maxClicks?: number | null
            expiredUrl?: string | null
            password?: string | null
            rules?:
              | {
                  /** @description Every condition given must match (any of its values); an empty object matches every visit */
                  when: {
                    device?: ('ios' | 'android' | 'mobile' | 'tablet' | 'desktop')[]
                    os?: string[]
                    country?: string[]
                    language?: string[]
                  }
                  /**
                   * @description Absolute http or https URL
                   * @example https://shop.example/summer?ref=qr
                   */
                  destination: string
                }[]
              | null
            /** @description Duplicates are dropped; returned sorted. On update, the list replaces the old one */
            tags?: string[]
            /** @description Anyone may read the statistics, without signing in: GET /v1/public/links/{id}/stats, the page /app/public/{id}, reached by the short URL followed by +; default false */
            publicStats?: boolean
            preview?: {
              title?: string | null
              description?: string | null
              image?: string | null
            } | null
          }[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: (
              | {
                  /** @enum {boolean} */
                  ok: true
                  link: components['schemas']['Link']
                }
              | {
                  /** @enum {boolean} */
                  ok: false
                  error: {
                    /** @example validation_error */
                    code: string
                    /** @example destination must be an absolute http or https URL with a host */
                    message: string
                    param: string | null
                  }
                }
            )[]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postLinksBulkDelete: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "ids": [
         *         "lnk_01JD0000000000000000000000"
         *       ]
         *     }
         */
        'application/json': {
          ids: string[]
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
              id: string
              deleted: boolean
            }[]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getLinksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Link']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  putLinksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "destination": "https://shop.example/autumn",
         *       "title": "Autumn sale"
         *     }
         */
        'application/json': {
          /**
           * @description Absolute http or https URL
           * @example https://shop.example/summer?ref=qr
           */
          destination?: string
          /** @description A default domain or one of your custom domains */
          domain?: string
          /** @description Case-sensitive; omitted: 7 random base62 characters */
          path?: string
          title?: string | null
          display_name?: string | null
          /**
           * @description Status of the redirect; default 302
           * @enum {integer}
           */
          redirectType?: 301 | 302 | 307 | 308
          expiresAt?: string | null
          maxClicks?: number | null
          expiredUrl?: string | null
          password?: string | null
          rules?:
            | {
                /** @description Every condition given must match (any of its values); an empty object matches every visit */
                when: {
                  device?: ('ios' | 'android' | 'mobile' | 'tablet' | 'desktop')[]
                  os?: string[]
                  country?: string[]
                  language?: string[]
                }
                /**
                 * @description Absolute http or https URL
                 * @example https://shop.example/summer?ref=qr
                 */
                destination: string
              }[]
            | null
          /** @description Duplicates are dropped; returned sorted. On update, the list replaces the old one */
          tags?: string[]
          /** @description Anyone may read the statistics, without signing in: GET /v1/public/links/{id}/stats, the page /app/public/{id}, reached by the short URL followed by +; default false */
          publicStats?: boolean
          preview?: {
            title?: string | null
            description?: string | null
            image?: string | null
          } | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Link']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteLinksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
              id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchLinksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "destination": "https://shop.example/autumn",
         *       "title": "Autumn sale"
         *     }
         */
        'application/json': {
          /**
           * @description Absolute http or https URL
           * @example https://shop.example/summer?ref=qr
           */
          destination?: string
          /** @description A default domain or one of your custom domains */
          domain?: string
          /** @description Case-sensitive; omitted: 7 random base62 characters */
          path?: string
          title?: string | null
          display_name?: string | null
          /**
           * @description Status of the redirect; default 302
           * @enum {integer}
           */
          redirectType?: 301 | 302 | 307 | 308
          expiresAt?: string | null
          maxClicks?: number | null
          expiredUrl?: string | null
          password?: string | null
          rules?:
            | {
                /** @description Every condition given must match (any of its values); an empty object matches every visit */
                when: {
                  device?: ('ios' | 'android' | 'mobile' | 'tablet' | 'desktop')[]
                  os?: string[]
                  country?: string[]
                  language?: string[]
                }
                /**
                 * @description Absolute http or https URL
                 * @example https://shop.example/summer?ref=qr
                 */
                destination: string
              }[]
            | null
          /** @description Duplicates are dropped; returned sorted. On update, the list replaces the old one */
          tags?: string[]
          /** @description Anyone may read the statistics, without signing in: GET /v1/public/links/{id}/stats, the page /app/public/{id}, reached by the short URL followed by +; default false */
          publicStats?: boolean
          preview?: {
            title?: string | null
            description?: string | null
            image?: string | null
          } | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Link']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postLinksByIdCheck: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Link']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getLinksByIdStats: {
    parameters: {
      query?: {
        /** @description A date (2026-11-01) or an ISO 8601 date-time; default: 30 days ago (start of day) */
        from?: string
        /** @description A date (its whole day is included) or an ISO 8601 date-time; default: now */
        to?: string
        interval?: 'hour' | 'day' | 'month'
        /** @description An IANA time zone (Europe/Paris): day and month buckets, and from/to given as dates, are in it */
        tz?: string
        /** @description csv: the same statistics as section,value,clicks rows, then the time series */
        format?: 'json' | 'csv'
      }
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The link's statistics */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['LinkStats']
          }
          'text/csv': string
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getStats: {
    parameters: {
      query?: {
        /** @description A date (2026-11-01) or an ISO 8601 date-time; default: 30 days ago (start of day) */
        from?: string
        /** @description A date (its whole day is included) or an ISO 8601 date-time; default: now */
        to?: string
        interval?: 'hour' | 'day' | 'month'
        /** @description An IANA time zone (Europe/Paris): day and month buckets, and from/to given as dates, are in it */
        tz?: string
        /** @description csv: the same statistics as section,value,clicks rows, then the time series */
        format?: 'json' | 'csv'
        /** @description Links on this domain; a domain with none of yours matches nothing */
        domain?: string
        /** @description May repeat: links carrying every tag given */
        tag?: string[]
        /** @description May repeat (up to 100): links among these; an id that is not one of your links matches nothing */
        linkId?: string[]
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The statistics of the matching links together */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['StatsOverview']
          }
          'text/csv': string
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getPublicLinksByIdStats: {
    parameters: {
      query?: {
        /** @description A date (2026-11-01) or an ISO 8601 date-time; default: 30 days ago (start of day) */
        from?: string
        /** @description A date (its whole day is included) or an ISO 8601 date-time; default: now */
        to?: string
        interval?: 'hour' | 'day' | 'month'
        /** @description An IANA time zone (Europe/Paris): day and month buckets, and from/to given as dates, are in it */
        tz?: string
        /** @description csv: the same statistics as section,value,clicks rows, then the time series */
        format?: 'json' | 'csv'
      }
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The link's public statistics */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['LinkStats']
          }
          'text/csv': string
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getStatsNotFound: {
    parameters: {
      query?: {
        /** @description Only this domain (one of yours; 404 otherwise) */
        domain?: string
        /** @description A date (2026-11-01) or an ISO 8601 date-time; default: 30 days ago (start of day) */
        from?: string
        /** @description A date (its whole day is included) or an ISO 8601 date-time; default: now */
        to?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            /** @description At most 50, the most visited first (ties by domain, then path) */
            data: components['schemas']['MissingPath'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getLinksExport: {
    parameters: {
      query?: {
        /** @description csv: a header row, then one row per item; ndjson: one JSON object per line */
        format?: 'csv' | 'ndjson'
        /** @description Exact-match filters, combined with AND: query[title]=Sale, query[tag]=promo, or JSON: query={"title":"Sale"} */
        query?: {
          domain?: string
          path?: string
          destination?: string
          title?: string
          /** @description Links carrying every tag given: repeat it (query[tag]=promo&query[tag]=summer), or one value for one tag */
          tag?: string[]
          /**
           * @description Links whose destination health is this: query[health]=broken
           * @enum {string}
           */
          health?: 'unknown' | 'ok' | 'broken'
        }
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Every selected link, in the list's order, streamed */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'text/csv': string
          'application/x-ndjson': string
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getLinksByIdClicks: {
    parameters: {
      query?: {
        /** @description csv: a header row, then one row per item; ndjson: one JSON object per line */
        format?: 'csv' | 'ndjson'
        /** @description A date (2026-11-01) or an ISO 8601 date-time; default and earliest: the start of the retention period */
        from?: string
        /** @description Exclusive; a date includes its whole day; default: now */
        to?: string
      }
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The visits, streamed */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'text/csv': string
          'application/x-ndjson': string
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getLinksByIdQr: {
    parameters: {
      query?: {
        format?: 'png' | 'svg'
        /** @description Width and height in pixels (a code that needs more pixels gets them) */
        size?: number
        /** @description Quiet zone, in modules */
        margin?: number
        /** @description Error correction level */
        ecc?: 'L' | 'M' | 'Q' | 'H'
        /** @description color, #rrggbb */
        color?: string
        /** @description background, #rrggbb */
        background?: string
        /** @description true|1: Content-Disposition: attachment */
        download?: boolean
        /** @description true|1: the workspace's logo in the centre, with error correction H whatever `ecc` says (400 `logo` when there is none) */
        logo?: boolean
      }
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The QR code; it encodes the short URL with the QR-scan marker */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'image/png': string
          'image/svg+xml': string
        }
      }
      /** @description Not modified (If-None-Match matched the ETag) */
      304: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postLinksImport: {
    parameters: {
      query?: {
        /** @description The file's format; when absent, told from its start (a JSON link per line: ndjson; other JSON: kutt; else the CSV header's columns) */
        format?: 'csv' | 'ndjson' | 'bitly' | 'shlink' | 'kutt' | 'yourls'
        /** @description true: check every row and report, write nothing */
        dryRun?: boolean
      }
      header?: never
      path?: never
      cookie?: never
    }
    /** @description The import file's text (at most 5 MiB), sent with Content-Type text/csv, application/json or text/plain */
    requestBody: {
      content: {
        /**
         * @example destination,path,title,tags
         *     https://example.com/spring-sale,/spring,Spring sale,sale|spring
         */
        'text/csv': string
        /**
         * @example destination,path,title,tags
         *     https://example.com/spring-sale,/spring,Spring sale,sale|spring
         */
        'application/json': string
        /**
         * @example destination,path,title,tags
         *     https://example.com/spring-sale,/spring,Spring sale,sale|spring
         */
        'text/plain': string
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /**
               * @description The format the file was read as: the one named, or the one told from its start
               * @enum {string}
               */
              format: 'csv' | 'ndjson' | 'bitly' | 'shlink' | 'kutt' | 'yourls'
              dryRun: boolean
              /** @description Rows created (in a dry run: that would be) */
              created: number
              /** @description Rows whose link is already there, identical: nothing is written */
              skipped: number
              /** @description Rows refused, each with its reason in results */
              failed: number
              /** @description Links whose host on the service they come from is not one of yours here: how many went to which domain instead */
              moved: {
                /** @example bit.ly */
                from: string
                /** @example short.example */
                to: string
                /** @example 2 */
                links: number
              }[]
              /** @description One per row, in file order */
              results: {
                /** @description The row's line in the file (the CSV header is line 1; a row spanning lines: its first); in a Kutt JSON file, the item's position */
                line: number
                /**
                 * @description created (in a dry run: would be); skipped: the same link is there already; failed: see error
                 * @enum {string}
                 */
                status: 'created' | 'skipped' | 'failed'
                path: string | null
                link?: components['schemas']['Link']
                error?: {
                  /** @example validation_error */
                  code: string
                  /** @example destination must be an absolute http or https URL with a host */
                  message: string
                  param: string | null
                }
              }[]
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getWorkspaceLogo: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The workspace's logo, as uploaded */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'image/png': string
          'image/svg+xml': string
        }
      }
      /** @description Not modified (If-None-Match matched the ETag) */
      304: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  putWorkspaceLogo: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /** @description The image itself (at most 100 KB): a PNG of at most 1024×1024 pixels, or an SVG document with an <svg> root and nothing that runs or loads (no script, event handler, external link or url()) */
    requestBody: {
      content: {
        'image/png': string
        'image/svg+xml': string
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /**
               * @example image/png
               * @enum {string}
               */
              contentType: 'image/png' | 'image/svg+xml'
              /**
               * @description the image's size in bytes
               * @example 18342
               */
              bytes: number
              /**
               * Format: date-time
               * @example 2026-03-02T10:15:00.000Z
               */
              updatedAt: string
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteWorkspaceLogo: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getConversations: {
    parameters: {
      query?: {
        limit?: number
        /** @description The id of the last item of the previous page */
        starting_after?: string
        /** @description The id of the first item of the next (newer) page */
        ending_before?: string
        /** @description true: only muted; false: only the others */
        muted?: boolean
        /** @description true: only archived; false: only the others */
        archived?: boolean
        /** @description true: only pinned; false: only the others */
        pinned?: boolean
        group_id?: string
        contact_id?: string
        link_id?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            has_more: boolean
            data: components['schemas']['Conversation'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postConversations: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /** @description Exactly one of contact_id and group_id */
    requestBody: {
      content: {
        /**
         * @example {
         *       "contact_id": "contact-42"
         *     }
         */
        'application/json': {
          /** @description Your own identifier of the contact (1-128 characters) */
          contact_id?: string
          /** @description Your own identifier of the group (1-128 characters) */
          group_id?: string
          link_id?: string | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Conversation']
        }
      }
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Conversation']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getConversationsById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Conversation']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  putConversationsById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "is_pinned": true
         *     }
         */
        'application/json': {
          is_pinned?: boolean
          is_muted?: boolean
          pinned_message_id?: string | null
          archived_at?: number | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Conversation']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteConversationsById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @example conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
            id: string
            /** @enum {boolean} */
            deleted: true
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchConversationsById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "is_pinned": true
         *     }
         */
        'application/json': {
          is_pinned?: boolean
          is_muted?: boolean
          pinned_message_id?: string | null
          archived_at?: number | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Conversation']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postConversationsByIdOpen: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': Record<string, never>
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Conversation']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getConversationsByIdMessages: {
    parameters: {
      query?: {
        limit?: number
        /** @description The id of the last item of the previous page */
        starting_after?: string
        /** @description The id of the first item of the next (newer) page */
        ending_before?: string
      }
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            has_more: boolean
            data: components['schemas']['Message'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postConversationsByIdMessages: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "text": "Your order has shipped."
         *     }
         */
        'application/json': {
          /** @description 1-4000 characters */
          text: string
          /**
           * @default outbound
           * @enum {string}
           */
          direction?: 'outbound' | 'inbound'
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Message']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getConversationsByIdMessagesByMessageId: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
        message_id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Message']
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteConversationsByIdMessagesByMessageId: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
        message_id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @example conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9 */
            id: string
            /** @enum {boolean} */
            deleted: true
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getDomains: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Domain'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postDomains: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description a DNS name (IDN allowed), optionally :port (1-65535); not an IP address, a default domain or a reserved host
           * @example go.acme.example
           */
          name: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Domain']
          }
        }
      }
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Domain']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getDomainsByName: {
    parameters: {
      query?: never
      header?: never
      path: {
        name: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Domain']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteDomainsByName: {
    parameters: {
      query?: never
      header?: never
      path: {
        name: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example go.acme.example */
              name: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postDomainsByNameVerify: {
    parameters: {
      query?: never
      header?: never
      path: {
        name: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Domain']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postSessions: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /** @description either `email` and `password`, or `token` */
    requestBody: {
      content: {
        /**
         * @example {
         *       "email": "ada@example.com",
         *       "password": "correct horse battery"
         *     }
         */
        'application/json': {
          /**
           * @description a person's email; with `password`
           * @example ada@example.com
           */
          email?: string
          /** @description with `email` */
          password?: string
          /**
           * @description or an API token (ll_…), exchanged for the session cookie and never stored in the browser
           * @example ll_paste-your-token-here
           */
          token?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Session']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteSessions: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @description how many sessions ended, this one included */
              deleted: number
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getSessionsCurrent: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Session']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  putSessionsCurrent: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description one of your workspaces (GET /v1/me)
           * @example default
           */
          workspaceId: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Session']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteSessionsCurrent: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchSessionsCurrent: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description one of your workspaces (GET /v1/me)
           * @example default
           */
          workspaceId: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Session']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getAuthMethods: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @description whether people may sign in with an email and password (`LINKLINE_PASSWORD_SIGNIN`) */
              password: boolean
              sso: {
                /**
                 * @description the provider, for the button: "Sign in with <name>" (`LINKLINE_OIDC_NAME`)
                 * @example authentik
                 */
                name: string
                /**
                 * @description where the button leads: a page navigation, not a request of a script
                 * @example /v1/auth/oidc/start
                 */
                startUrl: string
              } | null
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getMe: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Me']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getMembers: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Member'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  putMembersByUserId: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "role": "member"
         *     }
         */
        'application/json': {
          /**
           * @description viewer < member < admin < owner, each holding the scopes of the one before
           * @enum {string}
           */
          role: 'viewer' | 'member' | 'admin' | 'owner'
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Member']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteMembersByUserId: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0 */
              userId: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchMembersByUserId: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "role": "member"
         *     }
         */
        'application/json': {
          /**
           * @description viewer < member < admin < owner, each holding the scopes of the one before
           * @enum {string}
           */
          role: 'viewer' | 'member' | 'admin' | 'owner'
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Member']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getAuditLog: {
    parameters: {
      query?: {
        limit?: number
        /** @description the previous page's nextCursor (the id of its last entry) */
        starting_after?: string
        /** @description only entries of this action (link.deleted) */
        action?: string
        /** @description only entries about this kind of resource (link, domain, member…) */
        resourceType?: string
        /** @description only entries by this person (usr_…) or token (tok_…) */
        actorId?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['AuditEntry'][]
            pagination: {
              limit: number
              hasMore: boolean
              nextCursor: string | null
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getInvitations: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Invitation'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postInvitations: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /** @example ada@example.com */
          email: string
          /**
           * @description viewer, member, admin or owner; only an owner invites an owner
           * @example member
           * @enum {string}
           */
          role: 'viewer' | 'member' | 'admin' | 'owner'
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Invitation']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteInvitationsById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example inv_01JDQ8B1C2D3E4F5G6H7J8K9M0 */
              id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postInvitationsAccept: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /** @description `secret`, `name` and `password` create an account; `secret` alone, signed in, joins with the account you have */
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description the secret of the invitation link (the last part of /app/invite/<secret>)
           * @example hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs
           */
          secret: string
          /**
           * @description how the person is shown to others
           * @example Ada Lovelace
           */
          name?: string
          /**
           * @description 10 to 1024 characters
           * @example correct horse battery staple
           */
          password?: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Session']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postMembersByUserIdPasswordReset: {
    parameters: {
      query?: never
      header?: never
      path: {
        userId: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /**
               * @description the one-time link to /app/reset/<secret>, shown only here
               * @example https://links.acme.example/app/reset/hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs
               */
              url: string
              /**
               * Format: date-time
               * @description an hour after it was made
               */
              expiresAt: string
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postPasswordReset: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description the secret of the reset link (the last part of /app/reset/<secret>)
           * @example hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs
           */
          secret: string
          /**
           * @description 10 to 1024 characters
           * @example correct horse battery staple
           */
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0 */
              userId: string
              /** @example ada@example.com */
              email: string
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postMePassword: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /** @example the password of today */
          currentPassword: string
          /**
           * @description 10 to 1024 characters
           * @example correct horse battery staple
           */
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @enum {boolean} */
              changed: true
              /** @description how many of the person's other sessions ended */
              sessionsEnded: number
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postSetup: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description the code of the setup link the server printed (/app/setup?code=<code>)
           * @example hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs
           */
          code: string
          /** @example ada@example.com */
          email: string
          /**
           * @description how the person is shown to others
           * @example Ada Lovelace
           */
          name: string
          /**
           * @description 10 to 1024 characters
           * @example correct horse battery staple
           */
          password: string
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Session']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getTokens: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Token'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postTokens: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "name": "reporting",
         *       "scopes": [
         *         "links:read",
         *         "domains:read"
         *       ],
         *       "expiresAt": "2027-06-30T00:00:00.000Z"
         *     }
         */
        'application/json': {
          /** @example reporting */
          name?: string | null
          /**
           * @description at most the scopes of the token making the request; omitted: exactly those
           * @example [
           *       "links:read",
           *       "domains:read"
           *     ]
           */
          scopes?: (
            | 'links:read'
            | 'links:write'
            | 'conversations:read'
            | 'conversations:write'
            | 'domains:read'
            | 'domains:write'
            | 'tokens:write'
            | 'webhooks:read'
            | 'webhooks:write'
            | 'members:read'
            | 'members:write'
            | 'audit:read'
          )[]
          expiresAt?: string | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Token']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteTokensById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example tok_01JDQ6A1B2C3D4E5F6G7H8J9K0 */
              id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getWebhooks: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Webhook'][]
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postWebhooks: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "url": "https://hooks.example/linkline",
         *       "events": [
         *         "link.created",
         *         "link.clicked"
         *       ]
         *     }
         */
        'application/json': {
          /**
           * @description an absolute http or https URL; not a private, loopback or link-local address
           * @example https://hooks.example/linkline
           */
          url: string
          /** @description the events to send, or ["*"] */
          events: (
            | 'link.created'
            | 'link.updated'
            | 'link.deleted'
            | 'link.clicked'
            | 'link.broken'
            | 'conversation.created'
            | 'conversation.updated'
            | 'conversation.deleted'
            | 'message.created'
            | 'message.deleted'
            | '*'
          )[]
          description?: string | null
          batch?: {
            /**
             * @description the most events in one delivery
             * @example 500
             */
            maxEvents: number
            /**
             * @description how long the first event of a delivery may wait for others
             * @example 1000
             */
            maxWaitMs: number
          } | null
        }
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example whk_01JDQ8C1D2E3F4G5H6J7K8M9N0 */
              id: string
              /** @example https://hooks.acme.example/linkline */
              url: string
              events: string[]
              description: string | null
              batch: {
                /**
                 * @description the most events in one delivery
                 * @example 500
                 */
                maxEvents: number
                /**
                 * @description how long the first event of a delivery may wait for others
                 * @example 1000
                 */
                maxWaitMs: number
              } | null
              enabled: boolean
              disabledReason: string | null
              /** Format: date-time */
              createdAt: string
              /** Format: date-time */
              updatedAt: string
              createdBy: {
                type: 'user' | 'token'
                /**
                 * @description usr_… or tok_…
                 * @example usr_01JDQ6A1B2C3D4E5F6G7H8J9K0
                 */
                id: string
                /**
                 * @description the person's email or the token's name, as it was then
                 * @example ada@example.com
                 */
                label: string
              } | null
              /**
               * @description whsec_ + base64 of 32 random bytes: shown in this response only; keep it to verify signatures
               * @example whsec_MfKQ9r8GKYqXUpXKyOPCcTSsHqJbmh5B8gCwOoXx3hE=
               */
              secret: string
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getWebhooksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Webhook']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  putWebhooksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "enabled": true
         *     }
         */
        'application/json': {
          /**
           * @description an absolute http or https URL; not a private, loopback or link-local address
           * @example https://hooks.example/linkline
           */
          url?: string
          /** @description the events to send, or ["*"] */
          events?: (
            | 'link.created'
            | 'link.updated'
            | 'link.deleted'
            | 'link.clicked'
            | 'link.broken'
            | 'conversation.created'
            | 'conversation.updated'
            | 'conversation.deleted'
            | 'message.created'
            | 'message.deleted'
            | '*'
          )[]
          description?: string | null
          batch?: {
            /**
             * @description the most events in one delivery
             * @example 500
             */
            maxEvents: number
            /**
             * @description how long the first event of a delivery may wait for others
             * @example 1000
             */
            maxWaitMs: number
          } | null
          /** @description true enables again an endpoint that was disabled (its pending deliveries resume) */
          enabled?: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Webhook']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  deleteWebhooksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: {
              /** @example whk_01JDQ8C1D2E3F4G5H6J7K8M9N0 */
              id: string
              /** @enum {boolean} */
              deleted: true
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  patchWebhooksById: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        /**
         * @example {
         *       "enabled": true
         *     }
         */
        'application/json': {
          /**
           * @description an absolute http or https URL; not a private, loopback or link-local address
           * @example https://hooks.example/linkline
           */
          url?: string
          /** @description the events to send, or ["*"] */
          events?: (
            | 'link.created'
            | 'link.updated'
            | 'link.deleted'
            | 'link.clicked'
            | 'link.broken'
            | 'conversation.created'
            | 'conversation.updated'
            | 'conversation.deleted'
            | 'message.created'
            | 'message.deleted'
            | '*'
          )[]
          description?: string | null
          batch?: {
            /**
             * @description the most events in one delivery
             * @example 500
             */
            maxEvents: number
            /**
             * @description how long the first event of a delivery may wait for others
             * @example 1000
             */
            maxWaitMs: number
          } | null
          /** @description true enables again an endpoint that was disabled (its pending deliveries resume) */
          enabled?: boolean
        }
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['Webhook']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  getWebhooksByIdDeliveries: {
    parameters: {
      query?: {
        limit?: number
        /** @description the id of the last delivery of the previous page */
        starting_after?: string
      }
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['WebhookDelivery'][]
            pagination: {
              limit: number
              hasMore: boolean
              nextCursor: string | null
            }
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postWebhooksByIdTest: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': Record<string, never>
      }
    }
    responses: {
      /** @description Default Response */
      202: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['WebhookDelivery']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
  postWebhooksByIdDeliveriesByDeliveryIdRetry: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
        delivery_id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': Record<string, never>
      }
    }
    responses: {
      /** @description Default Response */
      202: {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true
            data: components['schemas']['WebhookDelivery']
          }
        }
      }
      /** @description The one error shape of every endpoint */
      '4XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
      /** @description The one error shape of every endpoint */
      '5XX': {
        headers: {
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ErrorBody']
        }
      }
    }
  }
}
