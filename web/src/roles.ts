import type { Me, Role } from './api'

/** Each role holds the scopes of the one before it (src/accounts/roles.ts). */
export const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner']

/** The roles this person may hand out: owner only by an owner (the API says the same). */
export const grantable = (me: Me) => ROLES.filter((r) => r !== 'owner' || me.principal.role === 'owner')
