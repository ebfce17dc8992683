import { freeText } from '@openpaw/contracts';
import { z } from 'zod';

export const OIDC_SCOPE = 'openid profile';

export const oidcSignInConfig = z.object({
  configured: z.literal(true),
  issuer: z.string(),
  authorizationEndpoint: z.string().describe('Where the console sends the browser with its PKCE challenge.'),
  clientId: z.string(),
  scope: z.string(),
  rolesClaim: z.string().describe('Where the provider\'s tokens carry the roles (a dotted path): the console reads it to offer admin pages; the gateway checks them itself.'),
});

/** No OIDC sign-in here: the console offers the token form alone. */
export const oidcNotConfigured = z.object({
  configured: z.literal(false),
  message: z.string(),
});

/** `GET /auth/oidc`: what is configured, either way (never a 404: "off" is an answer, not a missing route). */
export const oidcSignInAnswer = z.discriminatedUnion('configured', [oidcSignInConfig, oidcNotConfigured]);

/** RFC 7636: a verifier is 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const redeemCodeBody = z
  .object({
    code: freeText().min(1).max(2048).describe('The authorization code the provider redirected back with.'),
    codeVerifier: z
      .string()
      .regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'a PKCE code verifier: 43 to 128 characters of letters, digits and - . _ ~')
      .describe('The PKCE verifier whose S256 challenge the sign-in started with.'),
    redirectUri: z.url().max(2048).describe('The redirect URI the sign-in started with.'),
  })
  .strict();

export const redeemCodeResponse = z.object({
  accessToken: z.string().describe('A bearer token for this API (the provider\'s access token, verified like any other).'),
  expiresIn: z.int().nullable().describe('Seconds until it expires, as the provider said.'),
});
