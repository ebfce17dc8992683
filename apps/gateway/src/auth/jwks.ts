import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { JwtConfig } from '../config.js';

/** Asymmetric algorithms accepted from an identity provider. */
export const JWKS_ALGORITHMS = ['RS256', 'ES256'] as const;

/**
 * The identity provider's key set, fetched on first use and cached; a token signed with a `kid` the
 * cache lacks makes jose refetch (at most once per cooldown), so key rotation needs no restart.
 */
export class JwksKeys {
  #keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly config: Pick<JwtConfig, 'jwksUrl' | 'oidcIssuer' | 'jwksCooldownMs'>,
    private readonly fetchJson: (url: string) => Promise<unknown> = async (url) => {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      return response.json();
    },
  ) {}

  get enabled(): boolean {
    return this.config.jwksUrl !== undefined || this.config.oidcIssuer !== undefined;
  }

  /** The key resolver for `jwtVerify`. */
  keys(): Promise<JWTVerifyGetKey> {
    // A failed discovery is not cached: the next token tries again.
    this.#keys ??= this.#resolve().catch((error: unknown) => {
      this.#keys = undefined;
      throw error;
    });
    return this.#keys;
  }

  async #resolve(): Promise<JWTVerifyGetKey> {
    const url = this.config.jwksUrl ?? (await this.#discover());
    return createRemoteJWKSet(new URL(url), { cooldownDuration: this.config.jwksCooldownMs ?? 30_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 5_000 });
  }

  async #discover(): Promise<string> {
    const issuer = (this.config.oidcIssuer ?? '').replace(/\/$/, '');
    const document = await this.fetchJson(`${issuer}/.well-known/openid-configuration`);
    const jwksUri = (document as { jwks_uri?: unknown } | null)?.jwks_uri;
    if (typeof jwksUri !== 'string') throw new Error(`the OIDC discovery document of ${issuer} has no jwks_uri`);
    return jwksUri;
  }
}
