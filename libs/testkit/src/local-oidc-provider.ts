import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** Who "signs in" at the provider (it asks nobody: the test decides), and the claims of their tokens. */
export interface OidcAccount {
  readonly subject: string;
  /** Extra claims of the access token (e.g. `{ realm_access: { roles: ['admin'] } }`). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

export interface LocalOidcProvider {
  /** `http://127.0.0.1:<port>`: the issuer (`iss`) and the base of the discovery document. */
  readonly issuer: string;
  /** Signs an access token as the provider would, with overrides for the refusals tests need. */
  accessToken(account: OidcAccount, overrides?: { readonly audience?: string; readonly issuer?: string; readonly expiresInSeconds?: number }): Promise<string>;
  /** The next sign-in at the authorization endpoint is this account. */
  signInAs(account: OidcAccount): void;
  /** Token requests the provider answered, for assertions (grant type and whether PKCE matched). */
  readonly tokenRequests: { readonly grantType: string; readonly pkceMatched: boolean }[];
  close(): Promise<void>;
}

interface PendingCode {
  readonly account: OidcAccount;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
}

/**
 * An OpenID provider on 127.0.0.1 speaking the wire protocol (discovery, JWKS, authorization-code
 * endpoint with PKCE S256, token endpoint), with its own RS256 key: what an identity provider is to
 * the gateway and the console. The authorization endpoint signs in the account the test chose and
 * redirects back with a one-time code at once (no login form).
 */
export async function startLocalOidcProvider(options: { readonly audience: string; readonly clientId: string }): Promise<LocalOidcProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  const tokenRequests: { grantType: string; pkceMatched: boolean }[] = [];
  let account: OidcAccount = { subject: 'oidc-user' };
  let issuer = '';

  const sign = (who: OidcAccount, overrides: { audience?: string; issuer?: string; expiresInSeconds?: number } = {}): Promise<string> =>
    new SignJWT({ ...who.claims })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setSubject(who.subject)
      .setIssuer(overrides.issuer ?? issuer)
      .setAudience(overrides.audience ?? options.audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + (overrides.expiresInSeconds ?? 3600))
      .sign(privateKey);

  const json = (response: ServerResponse, status: number, body: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', issuer);
    if (request.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: ['RS256'],
        subject_types_supported: ['public'],
      });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/jwks') {
      json(response, 200, { keys: [jwk] });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/authorize') {
      const param = (name: string): string => url.searchParams.get(name) ?? '';
      if (param('response_type') !== 'code' || param('client_id') !== options.clientId || param('code_challenge_method') !== 'S256' || param('code_challenge') === '') {
        json(response, 400, { error: 'invalid_request', error_description: 'response_type=code, the client id and an S256 code_challenge are required' });
        return;
      }
      const code = randomUUID();
      codes.set(code, { account, clientId: param('client_id'), redirectUri: param('redirect_uri'), codeChallenge: param('code_challenge') });
      const back = new URL(param('redirect_uri'));
      back.searchParams.set('code', code);
      back.searchParams.set('state', param('state'));
      response.writeHead(302, { location: back.href }).end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const pkceMatched = pending !== undefined && createHash('sha256').update(verifier).digest('base64url') === pending.codeChallenge;
      tokenRequests.push({ grantType: form.get('grant_type') ?? '', pkceMatched });
      if (form.get('grant_type') !== 'authorization_code' || pending === undefined || pending.clientId !== form.get('client_id') || pending.redirectUri !== form.get('redirect_uri') || !pkceMatched) {
        json(response, 400, { error: 'invalid_grant', error_description: 'unknown or used code, or the client, redirect URI or code verifier does not match' });
        return;
      }
      const accessToken = await sign(pending.account);
      const idToken = await sign(pending.account, { audience: pending.clientId });
      json(response, 200, { access_token: accessToken, id_token: idToken, token_type: 'Bearer', expires_in: 3600 });
      return;
    }
    json(response, 404, { error: 'not_found' });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    accessToken: sign,
    signInAs: (next) => {
      account = next;
    },
    tokenRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
