/** The endpoints of the OIDC issuer the console signs in at, from its discovery document. */
export interface OidcEndpoints {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
}

/** What the token endpoint answered: tokens, or a refusal in OAuth's terms (`invalid_grant`, ...). */
export type CodeExchange =
  | { readonly kind: 'tokens'; readonly accessToken: string; readonly expiresIn: number | null }
  | { readonly kind: 'refused'; readonly error: string; readonly description: string };

const TIMEOUT_MS = 5_000;

/**
 * The gateway's side of the console's sign-in (authorization code + PKCE, RFC 7636): reads the
 * issuer's discovery document (cached once read) and redeems a code with the browser's verifier at
 * its token endpoint. The console's public client holds no secret; the verifier proves the code is its own.
 */
export class OidcProviderClient {
  #endpoints: Promise<OidcEndpoints> | undefined;

  constructor(private readonly issuer: string) {}

  endpoints(): Promise<OidcEndpoints> {
    // A failed read is not cached: the next sign-in tries again.
    this.#endpoints ??= this.#discover().catch((error: unknown) => {
      this.#endpoints = undefined;
      throw error;
    });
    return this.#endpoints;
  }

  async redeem(code: { readonly clientId: string; readonly code: string; readonly codeVerifier: string; readonly redirectUri: string }): Promise<CodeExchange> {
    const { tokenEndpoint } = await this.endpoints();
    const response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: code.clientId, code: code.code, code_verifier: code.codeVerifier, redirect_uri: code.redirectUri }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
    if (response.ok && typeof body.access_token === 'string') {
      return { kind: 'tokens', accessToken: body.access_token, expiresIn: typeof body.expires_in === 'number' ? body.expires_in : null };
    }
    if (response.status >= 500) throw new Error(`the token endpoint answered ${response.status}`);
    return {
      kind: 'refused',
      error: typeof body.error === 'string' ? body.error : `http_${response.status}`,
      description: typeof body.error_description === 'string' ? body.error_description : 'the identity provider refused the code',
    };
  }

  async #discover(): Promise<OidcEndpoints> {
    const base = this.issuer.replace(/\/$/, '');
    const response = await fetch(`${base}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) throw new Error(`the OIDC discovery document of ${base} answered ${response.status}`);
    const document = (await response.json()) as { issuer?: unknown; authorization_endpoint?: unknown; token_endpoint?: unknown };
    if (typeof document.authorization_endpoint !== 'string' || typeof document.token_endpoint !== 'string') {
      throw new Error(`the OIDC discovery document of ${base} names no authorization or token endpoint`);
    }
    return { issuer: typeof document.issuer === 'string' ? document.issuer : base, authorizationEndpoint: document.authorization_endpoint, tokenEndpoint: document.token_endpoint };
  }
}
