import { SignJWT } from 'jose';
import type { CliEnv } from './io.js';

/** Defaults of the gateway's JWT settings (`OPENPAW_JWT_ISSUER` / `OPENPAW_JWT_AUDIENCE`). */
export const DEFAULT_ISSUER = 'openpaw';
export const DEFAULT_AUDIENCE = 'openpaw-api';
export const DEFAULT_DEV_USER = 'local-user';

/**
 * A short-lived HS256 bearer token for local use, signed with `OPENPAW_JWT_SECRET` the way the
 * gateway's dev token is (`sub` = `OPENPAW_USER`, issuer, audience, optional `tier` claim from
 * `OPENPAW_TIER`). The CLI may not import the gateway app, so these few lines are repeated here.
 */
export async function mintDevToken(env: CliEnv, now: Date = new Date()): Promise<string> {
  const secret = env['OPENPAW_JWT_SECRET'];
  if (secret === undefined || secret.length < 32) throw new Error('OPENPAW_JWT_SECRET must be at least 32 characters');
  const tier = env['OPENPAW_TIER'];
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT(tier === undefined || tier === '' ? {} : { tier })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(env['OPENPAW_USER'] ?? DEFAULT_DEV_USER)
    .setIssuer(env['OPENPAW_JWT_ISSUER'] ?? DEFAULT_ISSUER)
    .setAudience(env['OPENPAW_JWT_AUDIENCE'] ?? DEFAULT_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + 3600)
    .sign(new TextEncoder().encode(secret));
}
