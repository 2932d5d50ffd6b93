import { GROUPS, SETTINGS, type Setting } from './settings.js'

/**
 * The settings tables of the docs, rendered from config/settings.ts and kept between markers that
 * name their source, so that the docs cannot drift from what loadConfig reads. `npm run docs:settings`
 * writes them; `--check` (CI) and settings-docs.test.ts fail when a file differs.
 */

type Entry = readonly [name: string, setting: Setting]
const ENTRIES: readonly Entry[] = Object.entries(SETTINGS)

const cell = (markdown: string): string => markdown.replaceAll('|', '\\|')

function shownDefault(setting: Setting): string {
  if (setting.derived !== undefined) return setting.default === undefined ? setting.derived : `${setting.derived} (\`${setting.default}\`)`
  return setting.default === undefined ? 'unset' : `\`${setting.default}\``
}

function table(entries: readonly Entry[], columns: readonly string[], row: (setting: Setting) => readonly string[]): string {
  return [
    `| variable | default | ${columns.join(' | ')} |`,
    `|---|---|${columns.map(() => '---|').join('')}`,
    ...entries.map(([name, setting]) => `| \`${name}\` | ${[shownDefault(setting), ...row(setting)].map(cell).join(' | ')} |`),
  ].join('\n')
}

const inGroupOrder = (entries: readonly Entry[]): Entry[] => GROUPS.flatMap((group) => entries.filter(([, setting]) => setting.group === group))

/** README.md: the settings most deployments set; operations.md has them all. */
export const commonTable = (): string => table(inGroupOrder(ENTRIES.filter(([, setting]) => setting.common)), ['meaning'], (setting) => [setting.meaning])

/** docs/operations.md: every setting, one table per group. */
export const fullTables = (): string =>
  GROUPS.map(
    (group) =>
      `**${group}**\n\n` +
      table(
        ENTRIES.filter(([, setting]) => setting.group === group),
        ['meaning', 'in production, with several instances'],
        (setting) => [setting.meaning, setting.scaleOut ?? ''],
      ),
  ).join('\n\n')

/** The generated part of each file, by its path from the repository root. */
export const GENERATED: Readonly<Record<string, () => string>> = { 'README.md': commonTable, 'docs/operations.md': fullTables }

const BEGIN = '<!-- settings:begin (generated from src/config/settings.ts: npm run docs:settings) -->'
const END = '<!-- settings:end -->'

/** `content` with its generated part rendered again; it throws when the markers are missing. */
export function withSettings(path: string, content: string): string {
  const render = GENERATED[path]
  const begin = content.indexOf(BEGIN)
  const end = content.indexOf(END, begin)
  if (render === undefined || begin === -1 || end === -1) throw new Error(`${path}: no ${BEGIN} … ${END} block`)
  return `${content.slice(0, begin)}${BEGIN}\n\n${render()}\n\n${content.slice(end)}`
}
