import { randomBytes } from 'node:crypto'
import { conflict, validationError } from '../shared/errors.js'
import { newId } from '../shared/ids.js'
import type { Clock } from '../shared/clock.js'
import { hashPassword } from '../shared/password-hash.js'
import type { PasswordHashing } from '../shared/password-hashing.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Transaction } from '../storage/transaction.js'
import { createAccountsRepository, type AccountsRepository } from './accounts.repository.js'
import type { UserRow } from './accounts.table.js'
import type { Role } from './roles.js'

export const EMAIL_MAX_LENGTH = 254
export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_MAX_LENGTH = 1024
/**
 * People's password checks: one at a time, at most SIGN_IN_HASHES_PER_SECOND, and at most
 * SIGN_IN_HASH_QUEUE waiting (8 s), then 429. Each scrypt takes ~50 ms and sweeps 16 MiB through the
 * caches the redirect shares: measured, 5 a second raised the redirect's p99 2.3-fold, 1 a second
 * 1.6-fold (npm run bench -- --only sign-in). A team signs in a few times a minute.
 */
export const SIGN_IN_HASHES_PER_SECOND = 2
export const SIGN_IN_HASH_QUEUE = 16

export interface User {
  id: string
  email: string
  name: string
  createdAt: string
  lastSignInAt: string | null
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** An email as compared: trimmed, lower case (the users table's unique `email_key`). */
export const emailKey = (raw: string): string => raw.trim().toLowerCase()

/** An email as shown (trimmed) and as compared (emailKey); 400 on `param` when it is not one. */
export function normalizeEmail(raw: string, param = 'email'): { email: string; key: string } {
  const email = raw.trim()
  if ([...email].length > EMAIL_MAX_LENGTH || !EMAIL.test(email)) {
    throw validationError(param, `${param} must be an address like name@example.com, at most ${EMAIL_MAX_LENGTH} characters`)
  }
  return { email, key: emailKey(email) }
}

export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  createdAt: new Date(Number(row.created_at)).toISOString(),
  lastSignInAt: row.last_sign_in_at === null ? null : new Date(Number(row.last_sign_in_at)).toISOString(),
})

/**
 * People and the workspaces they belong to. Every password hash and check goes through the process's
 * bounded scrypt queue (shared/password-hashing.ts): off the event loop, and a flood of sign-ins from
 * one address waits behind itself.
 */
export function createAccountsService(deps: { repo: AccountsRepository; hashing: PasswordHashing; clock: Clock }) {
  const { repo, hashing, clock } = deps
  // Checked when the email is unknown, so that a wrong email costs what a wrong password does.
  let decoy: Promise<string> | undefined

  const hashFor = (email: string, password: string) => hashing.hash(`user\n${email}`, password)
  // A write that must join another feature's transaction (an invitation used as the person is created) runs on it.
  const repoOn = (trx: Transaction | undefined) => (trx === undefined ? repo : createAccountsRepository(trx))
  const taken = (email: string) => conflict(`a person with the email ${email} already exists`, 'email')

  /** A new person's row with the password hashed, not stored yet: the slow hash stays out of the transaction that stores it. 409 when the email is taken. */
  async function newUser(input: { email: string; name?: string; password?: string }): Promise<UserRow> {
    const { email, key } = normalizeEmail(input.email)
    if (await repo.findUserByEmailKey(key)) throw taken(email)
    return {
      id: newId('usr'),
      email,
      email_key: key,
      name: (input.name ?? '').trim(),
      password_hash: input.password === undefined ? null : await hashFor(key, input.password),
      created_at: clock.now(),
      last_sign_in_at: null,
    }
  }

  /** Stores a person from newUser, in `trx` when given; 409 when the email was taken meanwhile. */
  async function insertUser(row: UserRow, trx?: Transaction): Promise<UserRow> {
    try {
      await repoOn(trx).insertUser(row)
    } catch (error) {
      if (isUniqueViolation(error)) throw taken(row.email)
      throw error
    }
    return row
  }

  return {
    /** A new person; 409 when the email is taken (in any case). Without a password they sign in by SSO only. */
    async createUser(input: { email: string; name?: string; password?: string }): Promise<UserRow> {
      return insertUser(await newUser(input))
    },

    newUser,
    insertUser,

    /**
     * The person with this email and password, or undefined, in the same time either way (an unknown
     * email is checked against a decoy hash). `client` names the lane the check waits in.
     */
    async checkPassword(rawEmail: string, password: string, client: string): Promise<UserRow | undefined> {
      const user = await repo.findUserByEmailKey(emailKey(rawEmail))
      const stored = user?.password_hash ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))))
      const match = await hashing.verify(client, password, stored)
      return match && user?.password_hash != null ? user : undefined
    },

    async setPassword(userId: string, password: string): Promise<void> {
      const user = await repo.findUser(userId)
      if (!user) return
      await repo.setPasswordHash(userId, await hashFor(user.email_key, password))
    },
    /** The stored form of a new password for this person, hashed before the transaction that stores it (storePasswordHash). */
    passwordHashFor: (user: UserRow, password: string) => hashFor(user.email_key, password),
    storePasswordHash: (userId: string, hash: string, trx?: Transaction) => repoOn(trx).setPasswordHash(userId, hash),

    recordSignIn: (userId: string) => repo.touchSignIn(userId, clock.now()),
    findUser: (id: string) => repo.findUser(id),
    findUserByEmail: (email: string) => repo.findUserByEmailKey(emailKey(email)),
    listUsers: () => repo.listUsers(),
    removeUser: (id: string) => repo.deleteUser(id),
    membershipsOf: (userId: string) => repo.membershipsOf(userId),
    roleOf: (userId: string, workspaceId: string) => repo.roleOf(userId, workspaceId),
    ensureWorkspace: (id: string) => repo.ensureWorkspace(id, clock.now()),
    workspace: (id: string) => repo.findWorkspace(id),

    hasMembers: async (workspaceId: string, trx?: Transaction) => (await repoOn(trx).countMembers(workspaceId)) > 0,

    /** Adds the person to a workspace (created if need be), in `trx` when given; an existing membership keeps its role. */
    async join(userId: string, workspaceId: string, role: Role, trx?: Transaction): Promise<boolean> {
      const on = repoOn(trx)
      await on.ensureWorkspace(workspaceId, clock.now())
      return on.addMembership(userId, workspaceId, role, clock.now())
    },
  }
}

export type AccountsService = ReturnType<typeof createAccountsService>
