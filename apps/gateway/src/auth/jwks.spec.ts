import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { JwtConfig } from '../config.js';
import { signAccessToken, verifyAccessToken } from './tokens.js';

interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function signingKey(kid: string, alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A local identity provider: OIDC discovery and a JWKS whose keys the test rotates. */
class LocalIdp {
  keys: SigningKey[] = [];
  jwksRequests = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/keys` }));
      else if (req.url === '/keys') {
        this.jwksRequests += 1;
        res.end(JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}

function token(key: SigningKey, claims: { sub?: string; aud?: string; iss?: string; exp?: number; [extra: string]: unknown } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { sub: _sub, aud: _aud, iss: _iss, exp: _exp, ...extra } = claims;
  return new SignJWT(extra)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setSubject(claims.sub ?? 'user-1')
    .setIssuer(claims.iss ?? 'https://idp.example')
    .setAudience(claims.aud ?? 'openpaw-api')
    .setIssuedAt(now)
    .setExpirationTime(claims.exp ?? now + 600)
    .sign(key.privateKey);
}

describe('JWKS / OIDC access tokens (local identity provider)', () => {
  const idp = new LocalIdp();
  beforeAll(() => idp.start());
  afterAll(() => idp.stop());

  it('accepts RS256 and ES256 tokens from the JWKS, and a key added by rotation without a restart', async () => {
    const rsa = await signingKey('rsa-1', 'RS256');
    const ec = await signingKey('ec-1', 'ES256');
    idp.keys = [rsa, ec];
    const config: JwtConfig = { issuer: 'https://idp.example', audience: 'openpaw-api', jwksUrl: `${idp.url}/keys`, jwksCooldownMs: 0 };
    expect(await verifyAccessToken(config, await token(rsa))).toEqual({ userId: 'user-1' });
    expect(await verifyAccessToken(config, await token(ec, { sub: 'user-2' }))).toEqual({ userId: 'user-2' });
    expect(idp.jwksRequests).toBe(1);

    // The provider rotates: a new key appears, the old one is withdrawn.
    const next = await signingKey('rsa-2', 'RS256');
    idp.keys = [next, ec];
    expect(await verifyAccessToken(config, await token(next, { sub: 'user-3' }))).toEqual({ userId: 'user-3' });
    expect(idp.jwksRequests).toBe(2);
  });

  it('refuses a token from an unknown key, the wrong audience or issuer, an expired one, and HS256 when no secret is set', async () => {
    const known = await signingKey('known', 'ES256');
    idp.keys = [known];
    const config: JwtConfig = { issuer: 'https://idp.example', audience: 'openpaw-api', jwksUrl: `${idp.url}/keys` };
    const stranger = await signingKey('known', 'ES256');
    await expect(verifyAccessToken(config, await token(stranger))).rejects.toThrow('token is not valid');
    await expect(verifyAccessToken(config, await token(known, { aud: 'someone-else' }))).rejects.toThrow('token claim "aud" is not valid');
    await expect(verifyAccessToken(config, await token(known, { iss: 'https://evil.example' }))).rejects.toThrow('token claim "iss" is not valid');
    await expect(verifyAccessToken(config, await token(known, { exp: Math.floor(Date.now() / 1000) - 60 }))).rejects.toThrow('token expired');
    const hs = await signAccessToken({ ...config, secret: 'x'.repeat(32), issuer: 'https://idp.example' }, 'user-1');
    await expect(verifyAccessToken(config, hs)).rejects.toThrow('token is not valid');
  });

  it('finds the JWKS through OIDC discovery; HS256 dev tokens still work beside it when a secret is set', async () => {
    const key = await signingKey('oidc-1', 'RS256');
    idp.keys = [key];
    const config: JwtConfig = { issuer: 'https://idp.example', audience: 'openpaw-api', oidcIssuer: idp.url, secret: 's'.repeat(32) };
    expect(await verifyAccessToken(config, await token(key, { sub: 'oidc-user' }))).toEqual({ userId: 'oidc-user' });
    expect(await verifyAccessToken(config, await signAccessToken(config, 'dev-user'))).toEqual({ userId: 'dev-user' });
  });

  it('reads an identity provider token\'s roles from the configured claim (a dotted path); dev tokens keep `roles`', async () => {
    const key = await signingKey('roles-1', 'RS256');
    idp.keys = [key];
    const config: JwtConfig = { issuer: 'https://idp.example', audience: 'openpaw-api', jwksUrl: `${idp.url}/keys`, secret: 's'.repeat(32), rolesClaim: 'realm_access.roles' };
    expect(await verifyAccessToken(config, await token(key, { sub: 'kc-admin', realm_access: { roles: ['admin', 'Not A Role'] }, roles: ['ignored'] }))).toEqual({ userId: 'kc-admin', roles: ['admin'] });
    expect(await verifyAccessToken(config, await token(key, { sub: 'kc-user', roles: ['admin'] }))).toEqual({ userId: 'kc-user' });
    expect(await verifyAccessToken(config, await signAccessToken(config, 'dev-admin', { roles: ['admin'] }))).toEqual({ userId: 'dev-admin', roles: ['admin'] });
  });
});
