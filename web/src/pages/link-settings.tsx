import type { ComponentChild } from 'preact'
import type { Link } from '../api'
import { formatDate } from '../ui'
import { describeRule } from './link-rules'

const REDIRECTS: Record<Link['redirectType'], string> = {
  301: '301 Moved permanently',
  302: '302 Found',
  307: '307 Temporary redirect',
  308: '308 Permanent redirect',
}

/** What the link does besides sending people on, in words: what the form sets, read without opening it. */
export function Settings({ link }: { link: Link }) {
  const none = (text: string) => <span class="muted">{text}</span>
  const expired = link.expiresAt !== null && Date.parse(link.expiresAt) <= Date.now()
  const preview = link.preview === null ? [] : [link.preview.title, link.preview.description, link.preview.image].filter((p) => p !== null)
  const rows: [string, ComponentChild][] = [
    ['Redirect', REDIRECTS[link.redirectType]],
    ['Expires', link.expiresAt === null ? none('Never') : `${expired ? 'Expired' : 'On'} ${formatDate(link.expiresAt)}`],
    ['Click limit', link.maxClicks === null ? none('None') : `${link.maxClicks.toLocaleString()} human visits`],
    ['When expired', link.expiredUrl ?? none('A “410 Gone” page')],
    ['Password', link.hasPassword ? 'Yes: visitors must type it' : none('No')],
    [
      'Tags',
      link.tags.length === 0 ? (
        none('None')
      ) : (
        <span class="chips">
          {link.tags.map((t) => (
            <span key={t} class="tag">
              {t}
            </span>
          ))}
        </span>
      ),
    ],
    ['Social preview', preview.length === 0 ? none('None: apps show what they find') : preview.join(' · ')],
    [
      'Rules',
      (link.rules ?? []).length === 0 ? (
        none('None: every visit goes to the URL above')
      ) : (
        <ol data-testid="rules">
          {link.rules!.map((rule, i) => (
            <li key={i}>{describeRule(rule)}</li>
          ))}
        </ol>
      ),
    ],
  ]
  return (
    <div class="card link-settings" data-testid="link-settings">
      <h2>Settings</h2>
      <dl>
        {rows.map(([name, value]) => (
          <div key={name} data-setting={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </div>
  )
}
