/**
 * Why a single sign-on did not complete. These end in a page for a person, not in the API's error
 * envelope: `reason` is a sentence to show them (it may quote the provider's own error text, so a page
 * escapes it); `message` adds the technical detail, for the log.
 */
export class SsoError extends Error {
  constructor(
    readonly reason: string,
    detail?: string,
    options?: ErrorOptions,
  ) {
    super(detail === undefined ? reason : `${reason} (${detail})`, options)
    this.name = new.target.name
  }
}

/** This sign-in is refused: the person cancelled, the answer failed a check, or it came too late. Starting again may work. */
export class SsoRefused extends SsoError {}

/** The provider cannot be used now: unreachable, misconfigured, or it refused Linkline's client credentials. */
export class SsoUnavailable extends SsoError {}
