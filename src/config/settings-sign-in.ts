import { text } from './setting-kinds.js'

/** How people sign in to the dashboard: passwords, single sign-on (docs/sso.md), and the address it returns to. */
export const SIGN_IN_SETTINGS = {
  LINKLINE_PUBLIC_URL: text({
    group: 'People and sign-in',
    derived: "each request's `Host` and protocol",
    meaning:
      'the external base URL of the dashboard, scheme and host only (e.g. `https://links.example.com`); single sign-on returns ' +
      'to `<this>/v1/auth/oidc/callback`, the redirect URI registered at the provider',
    scaleOut: 'set it behind a proxy, so that the redirect URI does not depend on the headers that reach each instance',
  }),
  LINKLINE_PASSWORD_SIGNIN: text({
    group: 'People and sign-in',
    default: 'on',
    meaning: '`off` refuses sign-in with a password, leaving single sign-on as the only way in for people (it needs `LINKLINE_OIDC_ISSUER`)',
  }),
  LINKLINE_OIDC_ISSUER: text({
    group: 'People and sign-in',
    meaning:
      'issuer URL of the OpenID provider (e.g. `https://auth.example.com/application/o/linkline/`), exactly as its discovery document ' +
      'says it (https; http only on the loopback); with the client id and secret, the sign-in page offers single sign-on',
    scaleOut: 'see [Single sign-on](sso.md) for setting up the provider',
  }),
  LINKLINE_OIDC_CLIENT_ID: text({ group: 'People and sign-in', meaning: 'client id of Linkline at the OpenID provider (a confidential client)' }),
  LINKLINE_OIDC_CLIENT_SECRET: text({ group: 'People and sign-in', meaning: 'client secret of Linkline at the OpenID provider' }),
  LINKLINE_OIDC_NAME: text({ group: 'People and sign-in', default: 'SSO', meaning: 'the sign-in button reads `Sign in with <this>`' }),
  LINKLINE_OIDC_ALLOWED_DOMAINS: text({
    group: 'People and sign-in',
    meaning:
      'comma-separated email domains (e.g. `example.com`) whose people get an account at their first single sign-on; unset: only ' +
      'people who already have an account can sign in with it',
  }),
  LINKLINE_OIDC_DEFAULT_WORKSPACE: text({
    group: 'People and sign-in',
    derived: '`LINKLINE_BOOTSTRAP_OWNER`',
    meaning: 'the workspace an account created by single sign-on joins',
  }),
  LINKLINE_OIDC_DEFAULT_ROLE: text({
    group: 'People and sign-in',
    default: 'member',
    meaning: 'the role of an account created by single sign-on in that workspace: `viewer`, `member` or `admin`',
  }),
  LINKLINE_SMTP_URL: text({
    group: 'People and sign-in',
    common: true,
    meaning:
      'the SMTP server that mails invitations and password-reset links: `smtp://user:password@mail.example.com:587` (STARTTLS when the ' +
      'server offers it) or `smtps://…:465` (TLS); special characters of the password percent-encoded. Unset, no mail is sent: each ' +
      'link is shown once in the API response and the dashboard, to pass on by hand. Logs show the URL without its password',
    scaleOut: 'the same on every instance',
  }),
  LINKLINE_SMTP_FROM: text({
    group: 'People and sign-in',
    default: 'Linkline <linkline@localhost>',
    meaning: 'the sender of those mails: `linkline@example.com` or `Linkline <linkline@example.com>` (an address the SMTP server lets you send as)',
  }),
} as const
