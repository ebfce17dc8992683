import { hasErrorCode, OpenPawError } from '@openpaw/contracts';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { JwtConfig } from '../config.js';
import { JWKS_ALGORITHMS, JwksKeys } from './jwks.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Who is calling: the token's `sub`, its subscription tier (claim `tier`) and roles (claim `roles`, e.g. `admin`) when the token has them. */
export interface AuthenticatedUser {
  readonly userId: string;
  readonly tier?: string;
  readonly roles?: readonly string[];
}

/** A role claim is a short lower-case name; anything else in `roles` is ignored. */
const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;

function rolesOf(claim: unknown): readonly string[] {
  return Array.isArray(claim) ? claim.filter((role): role is string => typeof role === 'string' && ROLE.test(role)) : [];
}

/** A tier claim is a short lower-case name (`free`, `pro`, ...); anything else is ignored. */
const TIER = /^[a-z][a-z0-9_-]{0,31}$/;

export class InvalidTokenError extends OpenPawError {
  readonly code = 'invalid_token';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'InvalidTokenError';
  }
}

function keyOf(config: JwtConfig): Uint8Array {
  if (config.secret === undefined) throw new Error('no OPENPAW_JWT_SECRET: HS256 tokens are disabled');
  return new TextEncoder().encode(config.secret);
}

/**
 * The HS256 secret as a WebCrypto key, imported once per configuration: given the raw bytes, jose
 * imports them again on every verification (an extra crypto job per request).
 */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const hmacKeys = new WeakMap<JwtConfig, Promise<HmacKey>>();

function hmacVerifyKeyOf(config: JwtConfig): Promise<HmacKey> {
  let key = hmacKeys.get(config);
  if (key === undefined) {
    key = crypto.subtle.importKey('raw', keyOf(config), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    hmacKeys.set(config, key);
  }
  return key;
}

/** One cached key set per configuration (the guard's config lives as long as the app). */
const keySets = new WeakMap<JwtConfig, JwksKeys>();

function jwksOf(config: JwtConfig): JwksKeys {
  let keys = keySets.get(config);
  if (keys === undefined) {
    keys = new JwksKeys(config);
    keySets.set(config, keys);
  }
  return keys;
}

/** Tokens verified lately, per configuration (a client sends the same token with every request). */
const verifiedTokens = new WeakMap<JwtConfig, VerifiedTokens<AuthenticatedUser>>();

function verifiedTokensOf(config: JwtConfig): VerifiedTokens<AuthenticatedUser> {
  let tokens = verifiedTokens.get(config);
  if (tokens === undefined) {
    tokens = new VerifiedTokens();
    verifiedTokens.set(config, tokens);
  }
  return tokens;
}

/** Where an identity provider's tokens carry the roles unless `rolesClaim` says otherwise. */
export const DEFAULT_ROLES_CLAIM = 'roles';

/** The claim at a dotted path (`realm_access.roles`), or undefined. */
function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A verified token's payload and where it came from: the dev secret, or the identity provider's keys. */
interface Verified {
  readonly payload: JWTPayload;
  readonly source: 'dev_secret' | 'identity_provider';
}

/** The algorithm of tokens signed with the shared secret (development): the one symmetric algorithm accepted. */
export const DEV_SECRET_ALGORITHM = 'HS256';

/** HS256 with the shared secret (dev mode) when configured; RS256/ES256 from the JWKS when configured. Never both for one token. */
async function verifiedPayload(config: JwtConfig, token: string): Promise<Verified> {
  const options = { issuer: config.issuer, audience: config.audience, requiredClaims: ['sub', 'exp'] };
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw new InvalidTokenError('token is not valid');
  }
  if (alg === DEV_SECRET_ALGORITHM && config.secret !== undefined) {
    return { payload: (await jwtVerify(token, await hmacVerifyKeyOf(config), { ...options, algorithms: [DEV_SECRET_ALGORITHM] })).payload, source: 'dev_secret' };
  }
  const jwks = jwksOf(config);
  if (jwks.enabled && typeof alg === 'string' && (JWKS_ALGORITHMS as readonly string[]).includes(alg)) {
    return { payload: (await jwtVerify(token, await jwks.keys(), { ...options, algorithms: [...JWKS_ALGORITHMS] })).payload, source: 'identity_provider' };
  }
  // Same answer as a bad signature: the caller learns nothing about which algorithms exist.
  throw new InvalidTokenError('token is not valid');
}

/** Signs an HS256 access token for `userId` (the dev token of the local demo and of tests). */
export async function signAccessToken(
  config: JwtConfig,
  userId: string,
  options: { readonly expiresIn?: string | number; readonly now?: Date; readonly tier?: string; readonly roles?: readonly string[] } = {},
): Promise<string> {
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT({ ...(options.tier === undefined ? {} : { tier: options.tier }), ...(options.roles === undefined ? {} : { roles: [...options.roles] }) })
    .setProtectedHeader({ alg: DEV_SECRET_ALGORITHM, typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(typeof options.expiresIn === 'number' ? issuedAt + options.expiresIn : (options.expiresIn ?? '12h'))
    .sign(keyOf(config));
}

/**
 * Verifies signature (HS256 with the shared secret, or RS256/ES256 from the identity provider's
 * JWKS), issuer, audience, expiry and `sub`; throws `InvalidTokenError`.
 */
export async function verifyAccessToken(config: JwtConfig, token: string): Promise<AuthenticatedUser> {
  const tokens = verifiedTokensOf(config);
  const remembered = tokens.get(token);
  if (remembered !== undefined) return remembered;
  try {
    const { payload, source } = await verifiedPayload(config, token);
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new InvalidTokenError('token has no subject');
    const tier = payload['tier'];
    const roles = rolesOf(source === 'identity_provider' ? claimAt(payload, config.rolesClaim ?? DEFAULT_ROLES_CLAIM) : payload['roles']);
    const user = { userId: payload.sub, ...(typeof tier === 'string' && TIER.test(tier) ? { tier } : {}), ...(roles.length === 0 ? {} : { roles }) };
    // `exp` is a required claim: jwtVerify has checked it is a number.
    if (typeof payload.exp === 'number') tokens.remember(token, { value: user, expiresAt: payload.exp });
    return user;
  } catch (error) {
    if (hasErrorCode(error, 'invalid_token')) throw error;
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
