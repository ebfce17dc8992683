import { createHash } from 'node:crypto';

/** What a verified token proved, and until when it holds. */
export interface VerifiedToken<T> {
  readonly value: T;
  /** The token's `exp` (seconds since the epoch). */
  readonly expiresAt: number;
}

/** How many verified tokens a gateway remembers (an entry is ~200 bytes). */
export const VERIFIED_TOKENS_MAX = 10_000;
/**
 * How long a verification is trusted before the token is verified again: bounds how long a token
 * signed with a key the identity provider has since withdrawn (JWKS rotation) is still accepted.
 */
export const VERIFIED_TOKEN_MAX_AGE_MS = 60_000;

/**
 * Tokens verified lately (a client sends the same token with every request): signature, issuer,
 * audience and algorithm are properties of the token's bytes, so a second verification of the same
 * token within `maxAgeMs` gives the same answer, and only its expiry is checked again. Keyed by the
 * token's SHA-256, never the token itself; bounded, oldest first out; failed verifications are not
 * remembered.
 */
export class VerifiedTokens<T> {
  readonly #entries = new Map<string, { readonly token: VerifiedToken<T>; readonly verifiedAt: number }>();

  constructor(
    private readonly maxEntries = VERIFIED_TOKENS_MAX,
    private readonly maxAgeMs = VERIFIED_TOKEN_MAX_AGE_MS,
  ) {}

  /** The token's remembered verification, when it is recent and the token has not expired. */
  get(token: string, nowMs = Date.now()): T | undefined {
    const key = keyOf(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (nowMs - entry.verifiedAt >= this.maxAgeMs || entry.token.expiresAt * 1000 <= nowMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.token.value;
  }

  remember(token: string, verified: VerifiedToken<T>, nowMs = Date.now()): void {
    const key = keyOf(token);
    this.#entries.delete(key);
    this.#entries.set(key, { token: verified, verifiedAt: nowMs });
    if (this.#entries.size <= this.maxEntries) return;
    const oldest = this.#entries.keys().next();
    if (oldest.done !== true) this.#entries.delete(oldest.value);
  }
}

function keyOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
