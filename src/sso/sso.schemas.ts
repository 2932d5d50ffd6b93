import { Type } from 'typebox'
import { Envelope, Nullable } from '../shared/schema.js'

/** No parameters: an unknown one is refused (400), as everywhere in the API. */
export const AuthMethodsQuery = Type.Object({}, { additionalProperties: false })

export const AuthMethodsEnvelope = Envelope(
  Type.Object({
    password: Type.Boolean({ description: 'whether people may sign in with an email and password (`LINKLINE_PASSWORD_SIGNIN`)' }),
    sso: Nullable(
      Type.Object(
        {
          name: Type.String({ description: 'the provider, for the button: "Sign in with <name>" (`LINKLINE_OIDC_NAME`)', examples: ['authentik'] }),
          startUrl: Type.String({ description: 'where the button leads: a page navigation, not a request of a script', examples: ['/v1/auth/oidc/start'] }),
        },
        { description: 'single sign-on; null when it is not configured' },
      ),
    ),
  }),
)
