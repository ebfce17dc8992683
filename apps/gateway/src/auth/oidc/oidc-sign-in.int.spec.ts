import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { freshDatabase, privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import { type LocalOidcProvider, type OidcAccount, startLocalOidcProvider } from '@openpaw/testkit';
import { SignJWT } from 'jose';
import type { GatewayConfig } from '../../config.js';
import { intSpecGatewayConfig, startIntSpecGateway } from '../../testing/int-spec-gateway.js';

process.env['LOG_LEVEL'] ??= 'warn';

const CLIENT_ID = 'openpaw-console';
const AUDIENCE = 'openpaw-api';
const REDIRECT_URI = 'http://127.0.0.1:9/console/';

/** The console's OIDC sign-in through the real gateway, against an OpenID provider on 127.0.0.1 (discovery, JWKS, code + PKCE, token endpoint). */
describe('OIDC sign-in and identity-provider tokens (local OpenID provider)', () => {
  let provider: LocalOidcProvider;
  let nats: NatsServerHandle;
  let app: INestApplication;
  let url: string;
  let blobDir: string;

  const call = async (method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };

  /** What the console does: a PKCE pair, the browser sent to the authorization endpoint, the code it comes back with. */
  async function authorize(account: OidcAccount): Promise<{ code: string; codeVerifier: string }> {
    const { body: config } = await call('GET', '/auth/oidc');
    const { authorizationEndpoint, clientId, scope } = config as { authorizationEndpoint: string; clientId: string; scope: string };
    const codeVerifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const target = new URL(authorizationEndpoint);
    for (const [name, value] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope, state, code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'), code_challenge_method: 'S256' })) {
      target.searchParams.set(name, value);
    }
    provider.signInAs(account);
    const redirect = await fetch(target, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const back = new URL(redirect.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(state);
    return { code: back.searchParams.get('code') ?? '', codeVerifier };
  }

  beforeAll(async () => {
    provider = await startLocalOidcProvider({ audience: AUDIENCE, clientId: CLIENT_ID });
    nats = await privateNatsServer();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-oidc-blobs-'));
    const config: GatewayConfig = intSpecGatewayConfig({ natsUrl: nats.url, databaseUrl: await freshDatabase('gateway_oidc'), blobDir }, {
      // No dev secret: only the provider's tokens are trusted.
      jwt: { issuer: provider.issuer, audience: AUDIENCE, oidcIssuer: provider.issuer, oidcClientId: CLIENT_ID, rolesClaim: 'realm_access.roles', jwksCooldownMs: 0 },
    });
    ({ app, url } = await startIntSpecGateway(config));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await nats?.dispose();
    await provider?.close();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  it('tells the console where to sign in, without a token', async () => {
    expect(await call('GET', '/auth/oidc')).toEqual({
      status: 200,
      body: { configured: true, issuer: provider.issuer, authorizationEndpoint: `${provider.issuer}/authorize`, clientId: CLIENT_ID, scope: 'openid profile', rolesClaim: 'realm_access.roles' },
    });
  });

  it('redeems a code with its PKCE verifier for a token the API accepts, roles read from the configured claim', async () => {
    const admin = await authorize({ subject: 'kc-olga', claims: { realm_access: { roles: ['admin'] } } });
    const redeemed = await call('POST', '/auth/oidc/token', { body: { ...admin, redirectUri: REDIRECT_URI } });
    expect(redeemed).toEqual({ status: 200, body: { accessToken: expect.any(String), expiresIn: 3600 } });
    expect(provider.tokenRequests.at(-1)).toEqual({ grantType: 'authorization_code', pkceMatched: true });
    const adminToken = (redeemed.body as { accessToken: string }).accessToken;
    expect((await call('GET', '/runs?limit=1', { token: adminToken })).status).toBe(200);
    expect((await call('GET', '/ops/lanes', { token: adminToken })).status).toBe(200);
    // A code is used once.
    expect((await call('POST', '/auth/oidc/token', { body: { ...admin, redirectUri: REDIRECT_URI } })).status).toBe(401);

    const student = await authorize({ subject: 'kc-sam', claims: { roles: ['admin'] } });
    const studentToken = ((await call('POST', '/auth/oidc/token', { body: { ...student, redirectUri: REDIRECT_URI } })).body as { accessToken: string }).accessToken;
    expect((await call('GET', '/runs?limit=1', { token: studentToken })).status).toBe(200);
    // `roles` at the top level is not the configured claim.
    expect((await call('GET', '/ops/lanes', { token: studentToken })).status).toBe(403);
  });

  it('refuses a code with another verifier (401 saying the provider refused), and bad input with 400 naming the field', async () => {
    const { code } = await authorize({ subject: 'kc-mallory' });
    const refused = await call('POST', '/auth/oidc/token', { body: { code, codeVerifier: randomBytes(32).toString('base64url'), redirectUri: REDIRECT_URI } });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'oidc_sign_in_refused', message: expect.stringContaining('invalid_grant') });
    expect(provider.tokenRequests.at(-1)).toEqual({ grantType: 'authorization_code', pkceMatched: false });

    const invalid = await call('POST', '/auth/oidc/token', { body: { code, codeVerifier: 'short', redirectUri: REDIRECT_URI } });
    expect(invalid.status).toBe(400);
    expect((invalid.body as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual(['codeVerifier']);
  });

  it('refuses provider tokens for another audience, from another issuer, expired, or HS256 (no dev secret here)', async () => {
    const who = { subject: 'kc-eve' };
    expect((await call('GET', '/runs?limit=1', { token: await provider.accessToken(who) })).status).toBe(200);
    for (const token of [
      await provider.accessToken(who, { audience: 'another-api' }),
      await provider.accessToken(who, { issuer: 'http://127.0.0.1:1' }),
      await provider.accessToken(who, { expiresInSeconds: -60 }),
      await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('kc-eve').setIssuer(provider.issuer).setAudience(AUDIENCE).setExpirationTime('1h').sign(new TextEncoder().encode('x'.repeat(32))),
    ]) {
      const response = await call('GET', '/runs?limit=1', { token });
      expect(response.status).toBe(401);
    }
  });
});
