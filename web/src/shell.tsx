import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Me } from './api'
import { useRoute, visitCount } from './router'
import { A, asyncHandler, initial, Loading, usePageTitle } from './ui'
import { AnalyticsPage } from './pages/analytics'
import { AuditPage } from './pages/audit'
import { ConversationsPage } from './pages/conversations'
import { DomainsPage } from './pages/domains'
import { ImportExportPage } from './pages/import-export'
import { LinkDetailPage } from './pages/link-detail'
import { LinksPage } from './pages/links'
import { MembersPage } from './pages/members'
import { TokensPage } from './pages/tokens'
import { WebhooksPage } from './pages/webhooks'
import './shell.css'

/** Each section and the scope that opens it: what a role cannot use is not offered (the API refuses it anyway). */
const NAV = [
  { to: '/', label: 'Links', scope: 'links:read' },
  // The links list filtered to broken destinations (docs/api/link-care.md#destination-health).
  { to: '/?health=broken', label: 'Broken destinations', scope: 'links:read' },
  { to: '/analytics', label: 'Analytics', scope: 'links:read' },
  { to: '/conversations', label: 'Conversations', scope: 'conversations:read' },
  { to: '/domains', label: 'Domains', scope: 'domains:read' },
  { to: '/webhooks', label: 'Webhooks', scope: 'webhooks:read' },
  { to: '/import', label: 'Import & export', scope: 'links:read' },
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

type Section = (typeof NAV)[number]

/**
 * The sections: a row of links on a wide screen; on a narrow one (below 48rem, shell.css) they fold
 * behind a Menu button, a disclosure that Esc, a click elsewhere or a chosen section closes.
 */
function Sections({ sections, current }: { sections: Section[]; current: string }) {
  const [open, setOpen] = useState(false)
  const nav = useRef<HTMLElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    const closeOutside = (event: MouseEvent) => {
      if (!nav.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('click', closeOutside)
    return () => document.removeEventListener('click', closeOutside)
  }, [])
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return
    setOpen(false)
    toggle.current?.focus()
  }
  return (
    <nav aria-label="Sections" class={open ? 'sections open' : 'sections'} ref={nav} onKeyDown={closeOnEscape}>
      <button type="button" class="menu-toggle" ref={toggle} aria-expanded={open} aria-controls="sections-list" onClick={() => setOpen(!open)}>
        <span class="menu-icon" aria-hidden="true">
          ☰
        </span>
        Menu
      </button>
      <ul id="sections-list" onClick={(event) => (event.target as Element).closest('a') && setOpen(false)}>
        {sections.map((n) => (
          <li key={n.to}>
            <A to={n.to} class={current === n.to ? 'active' : ''} current={current === n.to}>
              {n.label}
            </A>
          </li>
        ))}
        <li>
          <a href="/docs/" target="_blank" rel="noopener">
            API docs
          </a>
        </li>
      </ul>
    </nav>
  )
}

/**
 * Once a new page is drawn, the focus goes to its heading (made focusable here), so that a screen
 * reader starts there and Tab continues from the page, not from the link that opened it. Only on a
 * new page (a link followed, Back): a filter changed in place keeps the focus where it is. A page
 * whose heading waits for its data gets the focus when the heading appears, unless the person
 * has moved the focus into the page meanwhile.
 */
function useHeadingFocus(page: string) {
  const last = useRef({ page, visits: visitCount() })
  const stop = useRef<(() => void) | null>(null)
  useEffect(() => {
    const now = { page, visits: visitCount() }
    if (now.page !== last.current.page && now.visits !== last.current.visits) {
      stop.current?.()
      stop.current = focusHeading()
    }
    last.current = now
  })
  useEffect(() => () => stop.current?.(), [])
}

function focusHeading(): () => void {
  const main = document.getElementById('main')
  if (!main) return () => {}
  const focus = () => {
    const active = document.activeElement
    if (active !== main && active !== null && main.contains(active)) return true
    const heading = main.querySelector<HTMLElement>('h1')
    if (!heading) return false
    heading.tabIndex = -1
    heading.focus()
    return true
  }
  if (focus()) return () => {}
  const observer = new MutationObserver(() => focus() && observer.disconnect())
  observer.observe(main, { childList: true, subtree: true })
  return () => observer.disconnect()
}

/** Tab's first stop: past the header's links, straight to the page. */
const SkipLink = () => (
  <a
    class="skip-link"
    href="#main"
    onClick={(event) => {
      event.preventDefault()
      document.getElementById('main')?.focus()
    }}
  >
    Skip to content
  </a>
)

const Brand = () => (
  <A to="/" class="brand">
    <span class="logo" aria-hidden="true">
      L
    </span>{' '}
    <span class="brand-name">Linkline</span>
  </A>
)

/** While the session loads (a slow server): the shell's frame at once, its sections still to come. */
export function ShellSkeleton() {
  return (
    <div class="shell" aria-busy="true">
      <header class="topbar">
        <Brand />
        <span class="placeholder sections-placeholder" />
        <span class="placeholder who-placeholder" />
      </header>
      <main id="main" tabIndex={-1}>
        <Loading what="your session" />
        <div class="placeholder heading-placeholder" />
        <div class="placeholder row-placeholder" />
        <div class="placeholder row-placeholder" />
        <div class="placeholder row-placeholder" />
      </main>
    </div>
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
  // The tab's title: the section's name, unless the page is something else.
  let title = NAV.find((n) => n.to === current)?.label ?? ''
  if (allowed && !can(allowed.scope)) {
    title = 'Not available'
    page = <Message title={title}>Your role in this workspace ({me.principal.role}) does not include this page.</Message>
  } else if (path === '/') page = <LinksPage canWrite={can('links:write')} />
  else if (link) {
    title = 'Link'
    page = <LinkDetailPage id={decodeURIComponent(link[1]!)} canWrite={can('links:write')} canEditLogo={can('domains:write')} />
  } else if (conversation)
    page = <ConversationsPage openId={conversation[1] ? decodeURIComponent(conversation[1]) : null} canWrite={can('conversations:write')} />
  else if (path === '/analytics') page = <AnalyticsPage />
  else if (path === '/domains') page = <DomainsPage canWrite={can('domains:write')} />
  else if (path === '/import') page = <ImportExportPage canWrite={can('links:write')} />
  else if (path === '/webhooks') page = <WebhooksPage canWrite={can('webhooks:write')} />
  else if (path === '/tokens') page = <TokensPage scopes={scopes} />
  else if (path === '/members') page = <MembersPage me={me} canWrite={can('members:write')} />
  else if (path === '/audit') page = <AuditPage />
  else {
    title = 'Page not found'
    page = <Message title={title}>There is no such page in the dashboard.</Message>
  }
  usePageTitle(title)
  useHeadingFocus(link ? path : title)
  return (
    <div class="shell">
      <SkipLink />
      <header class="topbar">
        <Brand />
        <Sections sections={NAV.filter((n) => can(n.scope))} current={current} />
        <div class="who">
          <WorkspaceSwitch me={me} onSwitch={actions.switchWorkspace} />
          <AccountMenu me={me} actions={actions} />
        </div>
      </header>
      {/* A page per workspace: switching remounts it, so it loads that workspace's data. */}
      <main id="main" tabIndex={-1} class={path === '/' ? 'wide' : undefined} key={me.principal.workspaceId}>
        {page}
      </main>
    </div>
  )
}
