import { AnalyticsView } from '../analytics'
import { usePageTitle } from '../ui'

/**
 * A link's statistics for anyone with the address, when its owner made them public: read-only, no
 * sign-in. Any other link (private, deleted, unknown) gets the same sentence: the API's 404 says no more.
 */
export function PublicStatsPage({ linkId }: { linkId: string }) {
  usePageTitle('Link statistics')
  return (
    <div class="shell public">
      <header class="topbar">
        <span class="brand">
          <span class="logo" aria-hidden="true">
            L
          </span>{' '}
          Linkline
        </span>
      </header>
      <main>
        <section>
          <AnalyticsView
            scope={{ kind: 'public', linkId }}
            title="Link statistics"
            level={1}
            notFound={
              <div class="card" data-testid="not-public">
                <h1>These statistics are not public</h1>
                <p class="muted">The link does not exist, or its owner has not made its statistics public.</p>
              </div>
            }
          />
        </section>
      </main>
    </div>
  )
}
