/** Every scope a token or a session can hold (docs/api/tokens.md#scopes). Reads need `:read`, writes `:write`. */
export const SCOPES = [
  'links:read',
  'links:write',
  'conversations:read',
  'conversations:write',
  'domains:read',
  'domains:write',
  'tokens:write',
  'webhooks:read',
  'webhooks:write',
  'members:read',
  'members:write',
  'audit:read',
] as const
export type Scope = (typeof SCOPES)[number]

/** Roles in a workspace, each holding every scope of the one before it. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const
export type Role = (typeof ROLES)[number]

const VIEWER: Scope[] = ['links:read', 'conversations:read', 'domains:read', 'webhooks:read', 'members:read']
const MEMBER: Scope[] = [...VIEWER, 'links:write', 'conversations:write']
const ADMIN: Scope[] = [...MEMBER, 'domains:write', 'webhooks:write', 'tokens:write', 'members:write', 'audit:read']

// An owner's scopes are an admin's: what only an owner may do (grant or take `owner`) is judged by the role.
const SCOPES_OF: Record<Role, ReadonlySet<Scope>> = {
  viewer: new Set(VIEWER),
  member: new Set(MEMBER),
  admin: new Set(ADMIN),
  owner: new Set(ADMIN),
}

export const scopesOfRole = (role: Role): ReadonlySet<Scope> => SCOPES_OF[role]

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value)

/** Whether `role` is at least `floor` (viewer < member < admin < owner). */
export const atLeast = (role: Role, floor: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(floor)
