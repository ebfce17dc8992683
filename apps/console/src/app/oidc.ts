import type { GatewayClient } from './api/client.js';
import { errorMessage } from './api/resources.js';

/** The sign-in under way: kept in `sessionStorage` across the trip to the provider and back. */
const PENDING_KEY = 'openpaw.console.oidc';

interface PendingSignIn {
  readonly state: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly rolesClaim: string;
}

export interface OidcSignInConfig {
  readonly authorizationEndpoint: string;
  readonly clientId: string;
  readonly scope: string;
  readonly rolesClaim: string;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(byteCount: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(byteCount)));
}

/**
 * Sends the browser to the identity provider (authorization code + PKCE, RFC 7636): a fresh verifier
 * and state kept for the way back, the S256 challenge sent. The console's own address is the redirect URI.
 */
export async function startOidcSignIn(config: OidcSignInConfig): Promise<void> {
  const pending: PendingSignIn = { state: randomText(16), codeVerifier: randomText(32), redirectUri: `${location.origin}${location.pathname}`, rolesClaim: config.rolesClaim };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.codeVerifier))));
  const target = new URL(config.authorizationEndpoint);
  const params = { response_type: 'code', client_id: config.clientId, redirect_uri: pending.redirectUri, scope: config.scope, state: pending.state, code_challenge: challenge, code_challenge_method: 'S256' };
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  location.assign(target.href);
}

/** Whether the page was opened by the provider's redirect back (a code or an error in the query). */
export function isOidcRedirect(): boolean {
  const query = new URLSearchParams(location.search);
  return query.has('code') || query.has('error');
}

/**
 * Finishes a sign-in the provider redirected back from: checks the state, has the gateway redeem
 * the code with the verifier, and clears the query. The token, or why there is none.
 */
export async function finishOidcSignIn(client: GatewayClient): Promise<{ readonly token: string; readonly rolesClaim: string } | { readonly problem: string }> {
  const query = new URLSearchParams(location.search);
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  const providerError = query.get('error');
  if (providerError !== null) return { problem: `The identity provider did not sign you in: ${query.get('error_description') ?? providerError}.` };
  const pending = stored === null ? undefined : (JSON.parse(stored) as PendingSignIn);
  if (pending === undefined || pending.state !== query.get('state')) return { problem: 'This sign-in was not started here (its state does not match); start again.' };
  const { data, error } = await client.POST('/auth/oidc/token', { body: { code: query.get('code') ?? '', codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri } });
  return data !== undefined ? { token: data.accessToken, rolesClaim: pending.rolesClaim } : { problem: errorMessage(error, 'The gateway could not finish the sign-in.') };
}
