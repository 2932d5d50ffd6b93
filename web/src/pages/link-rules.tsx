import { useEffect, useRef } from 'preact/hooks'
import { ApiError, type Link } from '../api'
import { ErrorBox, Field, fieldError } from '../ui'
import { checkUrl, withScheme } from './link-urls'

/**
 * The link form's rules (docs/api/links.md#link-controls): each sends the visits it matches to its own
 * URL, the first match wins, none sends them to the link's destination. The API names a rule's
 * errors `rules[0][destination]`, `rules[1][when][country][0]`…: each shows at its rule's field.
 */
export type Rule = NonNullable<Link['rules']>[number]
type Device = NonNullable<Rule['when']['device']>[number]

/** The API's limit (links.schemas.ts LIMITS.rules). */
export const MAX_RULES = 20

const DEVICES: { value: Device; label: string; words: string }[] = [
  { value: 'ios', label: 'iPhone/iPad', words: 'iPhone/iPad' },
  { value: 'android', label: 'Android', words: 'Android' },
  { value: 'mobile', label: 'Phones', words: 'phone' },
  { value: 'tablet', label: 'Tablets', words: 'tablet' },
  { value: 'desktop', label: 'Computers', words: 'desktop' },
]

/** One rule as the form holds it: lists as the comma-separated text a person types. */
export interface RuleDraft {
  /** Keeps a rule's controls (and focus) with it when the rules are reordered. */
  key: number
  device: Device[]
  os: string
  country: string
  language: string
  destination: string
}
let nextKey = 0
const emptyDraft = (): RuleDraft => ({ key: nextKey++, device: [], os: '', country: '', language: '', destination: '' })

export const ruleDrafts = (link: Link | null): RuleDraft[] =>
  (link?.rules ?? []).map((r) => ({
    key: nextKey++,
    device: r.when.device ?? [],
    os: (r.when.os ?? []).join(', '),
    country: (r.when.country ?? []).join(', '),
    language: (r.when.language ?? []).join(', '),
    destination: r.destination,
  }))

const list = (text: string) =>
  text
    .split(/[,\s]+/)
    .map((t) => t.trim())
    .filter((t) => t !== '')

const toRule = (draft: RuleDraft): Rule => {
  const [os, country, language] = [list(draft.os), list(draft.country), list(draft.language)]
  return {
    when: {
      ...(draft.device.length > 0 && { device: draft.device }),
      ...(os.length > 0 && { os }),
      ...(country.length > 0 && { country }),
      ...(language.length > 0 && { language }),
    },
    destination: withScheme(draft.destination),
  }
}

/**
 * The body's `rules`, or undefined to leave it out: on create, only when there is a rule; on edit,
 * only when they changed, then the whole list (it replaces the old one), null when emptied.
 */
export function rulesBody(drafts: RuleDraft[], link: Link | null): Rule[] | null | undefined {
  const rules = drafts.map(toRule)
  if (link === null) return rules.length === 0 ? undefined : rules
  // The link's rules through the same drafts: what the form shows unchanged compares equal.
  if (JSON.stringify(rules) === JSON.stringify(ruleDrafts(link).map(toRule))) return undefined
  return rules.length === 0 ? null : rules
}

/** What can be told before sending, by the API's names for the fields: every rule needs a URL. */
export function ruleProblems(drafts: RuleDraft[]): Record<string, string> {
  const found: Record<string, string> = {}
  drafts.forEach((d, i) => {
    const name = `rules[${i}][destination]`
    const problem = d.destination.trim() === '' ? `${name} is required` : checkUrl(name)(d.destination)
    if (problem !== undefined) found[name] = problem
  })
  return found
}

const or = (items: string[]) => (items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`)

/** A rule in words: "iPhone/iPad users in DE → https://…", "Every visit → …". */
export function describeRule(rule: Rule): string {
  const { device, os, country, language } = rule.when
  const parts: string[] = []
  if (device?.length) parts.push(`${or(device.map((d) => DEVICES.find((x) => x.value === d)?.words ?? d))} users`)
  else if (os?.length || country?.length || language?.length) parts.push('Visitors')
  if (os?.length) parts.push(`on ${or(os)}`)
  if (country?.length) parts.push(`in ${or(country)}`)
  if (language?.length) parts.push(`speaking ${or(language)}`)
  return `${parts.length === 0 ? 'Every visit' : parts.join(' ')} → ${rule.destination}`
}

const CONDITIONS = [
  { key: 'os', label: 'Operating systems', placeholder: 'iOS, Windows', hint: 'As browsers name them: iOS, Android, Windows, macOS, Linux' },
  { key: 'country', label: 'Countries', placeholder: 'DE, AT', hint: 'Two-letter ISO codes' },
  { key: 'language', label: 'Languages', placeholder: 'de, de-AT', hint: "The browser's first language" },
] as const

export function RulesEditor(props: { drafts: RuleDraft[]; onChange: (drafts: RuleDraft[]) => void; error: unknown; problems: Record<string, string> }) {
  const { drafts, onChange, error } = props
  const box = useRef<HTMLDivElement>(null)
  /** After adding, removing or moving a rule: the control to give the focus to once drawn. */
  const focusNext = useRef<string | null>(null)
  useEffect(() => {
    if (focusNext.current === null) return
    // An effect of an earlier render can run before the one that draws the control: keep the wish until it is drawn.
    const control = box.current?.querySelector<HTMLElement>(focusNext.current)
    if (!control) return
    control.focus()
    focusNext.current = null
  })
  const update = (i: number, change: Partial<RuleDraft>) => onChange(drafts.map((d, j) => (j === i ? { ...d, ...change } : d)))
  const add = () => {
    const draft = emptyDraft()
    focusNext.current = `[data-rule="${draft.key}"] input`
    onChange([...drafts, draft])
  }
  const remove = (i: number) => {
    // The focus goes to the Remove button of the rule that takes its place, else to "Add a rule".
    const neighbour = drafts[i + 1] ?? drafts[i - 1]
    focusNext.current = neighbour === undefined ? '.add-rule' : `[data-rule="${neighbour.key}"] [data-remove]`
    onChange(drafts.filter((_, j) => j !== i))
  }
  const move = (i: number, by: -1 | 1) => {
    const next = [...drafts]
    const [moved] = next.splice(i, 1)
    next.splice(i + by, 0, moved!)
    // The focus stays on the button pressed, or on its twin when that one is gone at the end of the list.
    const target = i + by === 0 ? 'down' : i + by === drafts.length - 1 ? 'up' : by === -1 ? 'up' : 'down'
    focusNext.current = `[data-rule="${moved!.key}"] [data-move="${target}"]`
    onChange(next)
  }
  const ruleError = (i: number) => {
    const own = `rules[${i}]`
    const fields = ['device', 'os', 'country', 'language'].map((c) => `${own}[when][${c}]`)
    return fieldError(error, own) !== null && fieldError(error, ...fields, `${own}[destination]`) === null ? error : null
  }
  const listError = error instanceof ApiError && error.param === 'rules' ? error : null

  return (
    <div class="rules-editor" ref={box}>
      <h3>Rules</h3>
      <p class="hint">
        Send some visitors elsewhere: the first rule whose every condition matches picks the URL; a condition left empty matches every visit. Visits no rule
        matches go to the link’s own URL.
      </p>
      <ol class="rules">
        {drafts.map((d, i) => {
          const name = (field: string) => `rules[${i}][when][${field}]`
          const deviceError = fieldError(error, name('device'))
          return (
            <li key={d.key} data-rule={d.key}>
              <fieldset class="rule">
                <legend>Rule {i + 1}</legend>
                <fieldset class={deviceError ? 'devices invalid' : 'devices'}>
                  <legend class="label">Devices</legend>
                  <div class="checks">
                    {DEVICES.map((device) => (
                      <label key={device.value} class="inline-check">
                        <input
                          type="checkbox"
                          name={name('device')}
                          value={device.value}
                          checked={d.device.includes(device.value)}
                          onChange={(e) =>
                            update(i, {
                              device: e.currentTarget.checked ? [...d.device, device.value] : d.device.filter((x) => x !== device.value),
                            })
                          }
                        />
                        {device.label}
                      </label>
                    ))}
                  </div>
                  {deviceError ? (
                    <span class="field-error" role="alert">
                      {deviceError}
                    </span>
                  ) : null}
                </fieldset>
                <div class="grid">
                  {CONDITIONS.map((c) => (
                    <Field key={c.key} label={c.label} name={name(c.key)} error={error} hint={c.hint}>
                      <input
                        name={name(c.key)}
                        type="text"
                        value={d[c.key]}
                        placeholder={c.placeholder}
                        autoComplete="off"
                        onInput={(e) => update(i, { [c.key]: e.currentTarget.value })}
                      />
                    </Field>
                  ))}
                </div>
                <Field
                  label="Send them to"
                  name={`rules[${i}][destination]`}
                  error={error}
                  problem={props.problems[`rules[${i}][destination]`]}
                  hint="https:// is added when you leave it out"
                >
                  <input
                    name={`rules[${i}][destination]`}
                    type="text"
                    inputMode="url"
                    autoComplete="url"
                    value={d.destination}
                    placeholder="https://apps.apple.com/app/…"
                    onInput={(e) => update(i, { destination: e.currentTarget.value })}
                  />
                </Field>
                <ErrorBox error={ruleError(i)} />
                <div class="rule-actions">
                  {i > 0 ? (
                    <button type="button" class="small" data-move="up" aria-label={`Move rule ${i + 1} up`} onClick={() => move(i, -1)}>
                      ↑ Up
                    </button>
                  ) : null}
                  {i < drafts.length - 1 ? (
                    <button type="button" class="small" data-move="down" aria-label={`Move rule ${i + 1} down`} onClick={() => move(i, 1)}>
                      ↓ Down
                    </button>
                  ) : null}
                  <button type="button" class="small danger" data-remove aria-label={`Remove rule ${i + 1}`} onClick={() => remove(i)}>
                    Remove
                  </button>
                </div>
              </fieldset>
            </li>
          )
        })}
      </ol>
      <ErrorBox error={listError} />
      <button type="button" class="small add-rule" disabled={drafts.length >= MAX_RULES} onClick={add}>
        Add a rule
      </button>
      {drafts.length >= MAX_RULES ? <span class="hint"> At most {MAX_RULES} rules.</span> : null}
    </div>
  )
}
