import { errors, jwtVerify, SignJWT } from 'jose';
import type { JwtConfig } from '../config.js';

/** Who is calling: the token's `sub`, and its subscription tier (claim `tier`) when the token has one. */
export interface AuthenticatedUser {
  readonly userId: string;
  readonly tier?: string;
}

/** A tier claim is a short lower-case name (`free`, `pro`, ...); anything else is ignored. */
const TIER = /^[a-z][a-z0-9_-]{0,31}$/;

export class InvalidTokenError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'InvalidTokenError';
  }
}

function keyOf(config: JwtConfig): Uint8Array {
  return new TextEncoder().encode(config.secret);
}

/** Signs an HS256 access token for `userId` (the dev token of the local demo and of tests). */
export async function signAccessToken(
  config: JwtConfig,
  userId: string,
  options: { readonly expiresIn?: string | number; readonly now?: Date; readonly tier?: string } = {},
): Promise<string> {
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT(options.tier === undefined ? {} : { tier: options.tier })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(typeof options.expiresIn === 'number' ? issuedAt + options.expiresIn : (options.expiresIn ?? '12h'))
    .sign(keyOf(config));
}

/** Verifies signature (HS256 only), issuer, audience, expiry and `sub`; throws `InvalidTokenError`. */
export async function verifyAccessToken(config: JwtConfig, token: string): Promise<AuthenticatedUser> {
  try {
    const { payload } = await jwtVerify(token, keyOf(config), {
      algorithms: ['HS256'],
      issuer: config.issuer,
      audience: config.audience,
      requiredClaims: ['sub', 'exp'],
    });
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new InvalidTokenError('token has no subject');
    const tier = payload['tier'];
    return typeof tier === 'string' && TIER.test(tier) ? { userId: payload.sub, tier } : { userId: payload.sub };
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    if (error instanceof errors.JWTExpired) throw new InvalidTokenError('token expired');
    if (error instanceof errors.JWTClaimValidationFailed) throw new InvalidTokenError(`token claim "${error.claim}" is not valid`);
    throw new InvalidTokenError('token is not valid');
  }
}

/** The token of an `Authorization: Bearer <token>` header, if that is what the header holds. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+([A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_.+/=]*)\s*$/i.exec(header);
  return match?.[1];
}
