/**
 * Prints a bearer token for a user id, signed with the configured secret (local demo and manual
 * testing): `OPENPAW_JWT_SECRET=... node dist/apps/gateway/src/dev-token.js <userId> [ttl] [tier]`;
 * `OPENPAW_DEV_TOKEN_ROLES=admin` adds a roles claim (the operations API needs `admin`).
 */
import { gatewayConfigFromEnv } from './config.js';
import { signAccessToken } from './auth/tokens.js';

const [userId, ttl, tier] = process.argv.slice(2);
if (userId === undefined || userId.length === 0) {
  console.error('usage: dev-token <userId> [expiresIn, e.g. 12h] [subscription tier, e.g. pro]');
  process.exit(2);
}
const config = gatewayConfigFromEnv();
const roles = (process.env['OPENPAW_DEV_TOKEN_ROLES'] ?? '').split(',').map((role) => role.trim()).filter((role) => role !== '');
process.stdout.write(
  `${await signAccessToken(config.jwt, userId, { ...(ttl === undefined ? {} : { expiresIn: ttl }), ...(tier === undefined ? {} : { tier }), ...(roles.length === 0 ? {} : { roles }) })}\n`,
);
