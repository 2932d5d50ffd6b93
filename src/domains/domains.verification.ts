import { randomBytes } from 'node:crypto'
import { resolveTxt } from 'node:dns/promises'

/** The one DNS query verification needs; tests inject a stub object through ContainerOptions. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>
}

export const systemTxtResolver: TxtResolver = { resolveTxt }

/** The record a tenant publishes: one per host name, whatever the port (DNS knows no ports). */
export const verificationRecordName = (hostname: string) => `_linkline.${hostname}`

/** 128 bits, hex: fits a TXT string, and nobody guesses it before the domain is claimed. */
export const newVerificationToken = () => `linkline-verify=${randomBytes(16).toString('hex')}`

// Answers that mean "no such record (yet)", as opposed to a resolver that failed.
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME'])

/**
 * Whether one of the TXT records of `_linkline.<hostname>` is the token (a record split into several
 * strings is joined first, as RFC 7208 does for SPF). A missing record is false; a resolver failure throws.
 */
export async function hasVerificationRecord(resolver: TxtResolver, hostname: string, token: string): Promise<boolean> {
  try {
    const records = await resolver.resolveTxt(verificationRecordName(hostname))
    return records.some((chunks) => chunks.join('').trim() === token)
  } catch (error) {
    if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return false
    throw error
  }
}
