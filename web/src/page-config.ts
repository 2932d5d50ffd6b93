// What the server says in the page itself (src/dashboard/dashboard.routes.ts, dashboardPage): meta
// tags, since no inline script runs under the dashboard's CSP.
const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content

/** The workspace the first start printed a token for. */
export const BOOTSTRAP_WORKSPACE = meta('linkline-bootstrap-workspace') || 'default'

/** How people sign in here: email and password unless turned off, single sign-on when configured (its name). */
export const SIGN_IN = {
  password: meta('linkline-password-sign-in') !== 'off',
  ssoName: meta('linkline-sso') || null,
}

/** Where single sign-on starts: a full-page navigation to the identity provider, and back. */
export const SSO_START = '/v1/auth/oidc/start'
