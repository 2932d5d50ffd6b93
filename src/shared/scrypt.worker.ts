import { scryptSync, type ScryptOptions } from 'node:crypto'
import { setPriority } from 'node:os'
import { KEY_LENGTH, SCRYPT_MAXMEM } from './password-hash.js'

export interface ScryptTask {
  readonly password: string
  readonly salt: Uint8Array
  readonly options: ScryptOptions
}

// Lowest priority: on Linux a nice value belongs to the thread, so a flood of sign-ins hashes only
// on CPU time that serving leaves over.
setPriority(19)

/** One scrypt key (run by scrypt-thread.ts). */
export default function derive(task: ScryptTask): Uint8Array {
  return scryptSync(task.password.normalize('NFC'), task.salt, KEY_LENGTH, { ...task.options, maxmem: SCRYPT_MAXMEM })
}
