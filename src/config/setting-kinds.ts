/**
 * The kinds of setting that src/config/settings.ts lists, and the groups the docs show them in: apart,
 * so that a group kept in a file of its own (settings-sign-in.ts) builds its entries the same way.
 */

/** Order of the groups in docs/operations.md (and of the rows in README.md). */
export const GROUPS = [
  'Server',
  'Database and Redis',
  'Domains and short URLs',
  'Tokens and rate limits',
  'People and sign-in',
  'Visits and statistics',
  'QR codes',
  'Outbound requests',
  'Webhooks',
] as const

interface Described {
  readonly group: (typeof GROUPS)[number]
  /** What the setting does (both tables). */
  readonly meaning: string
  /** What an operator should know in production, with several instances above all (operations.md). */
  readonly scaleOut?: string
  /** Shown in README.md's short table too. */
  readonly common?: true
  /** A default that loadConfig derives from other settings, as the docs say it (`default` then is its usual value). */
  readonly derived?: string
}
export interface IntSetting extends Described {
  readonly kind: 'int'
  readonly default: number
  readonly min: number
  readonly max: number
}
export interface TextSetting extends Described {
  readonly kind: 'text'
  /** Unset (undefined) when absent. */
  readonly default?: string
}
export interface FlagSetting extends Described {
  readonly kind: 'flag'
  readonly default: false
}
export type Setting = IntSetting | TextSetting | FlagSetting

export const int = (setting: Omit<IntSetting, 'kind'>): IntSetting => ({ kind: 'int', ...setting })
export const text = <S extends Omit<TextSetting, 'kind'>>(setting: S): S & { kind: 'text' } => ({ kind: 'text', ...setting })
export const flag = (setting: Omit<FlagSetting, 'kind' | 'default'>): FlagSetting => ({ kind: 'flag', default: false, ...setting })
