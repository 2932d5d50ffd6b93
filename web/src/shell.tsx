import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import type { Me } from './api'
import { useRoute } from './router'
import { A, asyncHandler, initial } from './ui'
import { AnalyticsPage } from './pages/analytics'
import { AuditPage } from './pages/audit'
import { ConversationsPage } from './pages/conversations'
import { DomainsPage } from './pages/domains'
import { LinkDetailPage } from './pages/link-detail'
import { LinksPage } from './pages/links'
import { MembersPage } from './pages/members'
import { TokensPage } from './pages/tokens'
import { WebhooksPage } from './pages/webhooks'

/** Each section and the scope that opens it: what a role cannot use is not offered (the API refuses it anyway). */
const NAV = [
  { to: '/', label: 'Links', scope: 'links:read' },
  // The links list filtered to broken destinations (docs/api/link-care.md#destination-health).
  { to: '/?health=broken', label: 'Broken destinations', scope: 'links:read' },
  { to: '/analytics', label: 'Analytics', scope: 'links:read' },
  { to: '/conversations', label: 'Conversations', scope: 'conversations:read' },
  { to: '/domains', label: 'Domains', scope: 'domains:read' },
  { to: '/webhooks', label: 'Webhooks', scope: 'webhooks:read' },
  { to: '/tokens', label: 'Tokens', scope: 'tokens:write' },
  { to: '/members', label: 'Members', scope: 'members:read' },
  { to: '/audit', label: 'Audit log', scope: 'audit:read' },
]

export interface ShellActions {
  signOut: () => Promise<void>
  signOutEverywhere: () => Promise<void>
  switchWorkspace: (workspaceId: string) => Promise<void>
}

const displayName = (me: Me) => (me.user ? me.user.name || me.user.email : 'API token')
const workspaceName = (me: Me) => me.memberships.find((m) => m.workspaceId === me.principal.workspaceId)?.workspaceName ?? me.principal.workspaceId

function AccountMenu({ me, actions }: { me: Me; actions: ShellActions }) {
  const menu = useRef<HTMLDetailsElement>(null)
  const name = displayName(me)
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !menu.current?.open) return
    menu.current.open = false
    menu.current.querySelector('summary')?.focus()
  }
  // A click anywhere else closes the menu, as a menu does.
  useEffect(() => {
    const closeOutside = (event: MouseEvent) => {
      if (menu.current?.open && !menu.current.contains(event.target as Node)) menu.current.open = false
    }
    document.addEventListener('click', closeOutside)
    return () => document.removeEventListener('click', closeOutside)
  }, [])
  return (
    <details class="account" ref={menu} onKeyDown={closeOnEscape}>
      <summary data-testid="who">
        <span class="avatar" aria-hidden="true">
          {me.user ? initial(name) : '⚿'}
        </span>
        <span class="who-name">{name}</span>
      </summary>
      <div class="account-panel">
        <p class="account-id">
          <strong>{name}</strong>
          <span class="muted">{me.user ? me.user.email : 'Signed in with an API token'}</span>
        </p>
        <p class="muted small-print" data-testid="role">
          {me.principal.role} in <strong>{workspaceName(me)}</strong>
        </p>
        <button type="button" class="block" onClick={asyncHandler(actions.signOut)}>
          Sign out
        </button>
        <button type="button" class="block" onClick={asyncHandler(actions.signOutEverywhere)}>
          Sign out everywhere
        </button>
      </div>
    </details>
  )
}

function WorkspaceSwitch({ me, onSwitch }: { me: Me; onSwitch: (id: string) => Promise<void> }) {
  if (me.memberships.length < 2) return null
  return (
    <label class="workspace-switch">
      <span class="label">Workspace</span>
      <select value={me.principal.workspaceId} onChange={asyncHandler((e: Event) => onSwitch((e.currentTarget as HTMLSelectElement).value))}>
        {me.memberships.map((m) => (
          <option key={m.workspaceId} value={m.workspaceId}>
            {m.workspaceName}
          </option>
        ))}
      </select>
    </label>
  )
}

const Message = ({ title, children }: { title: string; children: ComponentChildren }) => (
  <section>
    <h1>{title}</h1>
    <p>{children}</p>
    <p>
      <A to="/">Back to the links</A>
    </p>
  </section>
)

export function Shell({ me, actions }: { me: Me; actions: ShellActions }) {
  const { path, query } = useRoute()
  const scopes = me.principal.scopes
  const can = (scope: string) => scopes.includes(scope)
  const section = path === '/' || path.startsWith('/links') ? '/' : `/${path.split('/')[1]}`
  const allowed = NAV.find((n) => n.to === section)
  const current = path === '/' && query.get('health') === 'broken' ? '/?health=broken' : section
  const link = /^\/links\/([^/]+)$/.exec(path)
  const conversation = /^\/conversations(?:\/([^/]+))?$/.exec(path)
  let page
  if (allowed && !can(allowed.scope))
    page = <Message title="Not available">Your role in this workspace ({me.principal.role}) does not include this page.</Message>
  else if (path === '/') page = <LinksPage canWrite={can('links:write')} />
  else if (link) page = <LinkDetailPage id={decodeURIComponent(link[1]!)} canWrite={can('links:write')} canEditLogo={can('domains:write')} />
  else if (conversation)
    page = <ConversationsPage openId={conversation[1] ? decodeURIComponent(conversation[1]) : null} canWrite={can('conversations:write')} />
  else if (path === '/analytics') page = <AnalyticsPage />
  else if (path === '/domains') page = <DomainsPage canWrite={can('domains:write')} />
  else if (path === '/webhooks') page = <WebhooksPage canWrite={can('webhooks:write')} />
  else if (path === '/tokens') page = <TokensPage scopes={scopes} />
  else if (path === '/members') page = <MembersPage me={me} canWrite={can('members:write')} />
  else if (path === '/audit') page = <AuditPage />
  else page = <Message title="Page not found">There is no such page in the dashboard.</Message>
  return (
    <div class="shell">
      <header class="topbar">
        <A to="/" class="brand">
          <span class="logo" aria-hidden="true">
            L
          </span>{' '}
          Linkline
        </A>
        <nav aria-label="Sections">
          {NAV.filter((n) => can(n.scope)).map((n) => (
            <A key={n.to} to={n.to} class={current === n.to ? 'active' : ''} current={current === n.to}>
              {n.label}
            </A>
          ))}
          <a href="/docs/" target="_blank" rel="noopener">
            API docs
          </a>
        </nav>
        <div class="who">
          <WorkspaceSwitch me={me} onSwitch={actions.switchWorkspace} />
          <AccountMenu me={me} actions={actions} />
        </div>
      </header>
      {/* A page per workspace: switching remounts it, so it loads that workspace's data. */}
      <main key={me.principal.workspaceId}>{page}</main>
    </div>
  )
}
