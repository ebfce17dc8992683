import { type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PublicRoute } from '@openpaw/platform';
import type { GatewayConfig } from '../config.js';
import { type AuthenticatedRequest, AuthGuard } from './auth.guard.js';
import { bearerTokenOf, signAccessToken, verifyAccessToken } from './tokens.js';
import { filterResponse } from '../http/testing/filter-response.js';

const jwt = { secret: 'unit-test-secret-unit-test-secret-123', issuer: 'openpaw', audience: 'openpaw-api' };
const config = { jwt } as GatewayConfig;

describe('access tokens', () => {
  it('round-trips a user id through a signed token', async () => {
    const token = await signAccessToken(jwt, 'user-1');
    await expect(verifyAccessToken(jwt, token)).resolves.toEqual({ userId: 'user-1' });
  });

  it('carries the subscription tier claim when there is a well-formed one', async () => {
    await expect(verifyAccessToken(jwt, await signAccessToken(jwt, 'user-1', { tier: 'pro' }))).resolves.toEqual({ userId: 'user-1', tier: 'pro' });
    await expect(verifyAccessToken(jwt, await signAccessToken(jwt, 'user-1', { tier: 'Not A Tier!' }))).resolves.toEqual({ userId: 'user-1' });
  });

  it('carries the well-formed roles of the roles claim (the operations API needs admin)', async () => {
    await expect(verifyAccessToken(jwt, await signAccessToken(jwt, 'user-1', { roles: ['admin', 'Not A Role!'] }))).resolves.toEqual({ userId: 'user-1', roles: ['admin'] });
    await expect(verifyAccessToken(jwt, await signAccessToken(jwt, 'user-1', { roles: [] }))).resolves.toEqual({ userId: 'user-1' });
  });

  it.each([
    ['another secret', { ...jwt, secret: 'a-different-secret-a-different-secret' }, 'token is not valid'],
    ['another issuer', { ...jwt, issuer: 'someone' }, 'token claim "iss" is not valid'],
    ['another audience', { ...jwt, audience: 'other-api' }, 'token claim "aud" is not valid'],
  ])('refuses a token signed with %s', async (_label, signer, reason) => {
    const token = await signAccessToken(signer, 'user-1');
    await expect(verifyAccessToken(jwt, token)).rejects.toMatchObject({ reason });
  });

  it('refuses an expired token', async () => {
    const token = await signAccessToken(jwt, 'user-1', { now: new Date(Date.now() - 7200_000), expiresIn: 60 });
    await expect(verifyAccessToken(jwt, token)).rejects.toMatchObject({ reason: 'token expired' });
  });

  it('refuses an unsigned ("alg: none") token', async () => {
    const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const token = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ sub: 'user-1', iss: 'openpaw', aud: 'openpaw-api', exp: now + 60 })}.`;
    await expect(verifyAccessToken(jwt, token)).rejects.toMatchObject({ reason: 'token is not valid' });
  });

  it('reads only Bearer authorization headers', () => {
    expect(bearerTokenOf('Bearer aaa.bbb.ccc')).toBe('aaa.bbb.ccc');
    expect(bearerTokenOf('bearer aaa.bbb.ccc')).toBe('aaa.bbb.ccc');
    expect(bearerTokenOf('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerTokenOf('Bearer')).toBeUndefined();
    expect(bearerTokenOf(undefined)).toBeUndefined();
  });
});

describe('AuthGuard', () => {
  class Routes {
    private(): void {}
    @PublicRoute()
    open(): void {}
  }

  function contextFor(handler: keyof Routes, authorization?: string) {
    const request = { headers: authorization === undefined ? {} : { authorization } } as AuthenticatedRequest;
    const headers: Record<string, string> = {};
    const response = { setHeader: (name: string, value: string) => (headers[name] = value) };
    const context = {
      getType: () => 'http',
      getHandler: () => Routes.prototype[handler],
      getClass: () => Routes,
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
    } as unknown as ExecutionContext;
    return { context, request, headers };
  }

  const guard = new AuthGuard(new Reflector(), config);

  it('lets a valid token through and sets the user', async () => {
    const { context, request } = contextFor('private', `Bearer ${await signAccessToken(jwt, 'user-7')}`);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(request.user).toEqual({ userId: 'user-7' });
  });

  it('answers 401 with a JSON body and a challenge without a token', async () => {
    const { context, headers } = contextFor('private');
    const error = await guard.canActivate(context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedException);
    expect((error as UnauthorizedException).getResponse()).toEqual({ error: 'unauthorized', message: 'a bearer token is required' });
    expect(headers['WWW-Authenticate']).toBe('Bearer realm="openpaw"');
  });

  it('answers 401 naming the problem for a bad token', async () => {
    const { context, headers } = contextFor('private', 'Bearer aaa.bbb.ccc');
    const error = await guard.canActivate(context).catch((e: unknown) => e);
    expect(filterResponse(error)).toEqual({ status: 401, body: { error: 'unauthorized', message: 'token is not valid' } });
    expect(headers['WWW-Authenticate']).toContain('error="invalid_token"');
  });

  it('lets public routes through without a token', async () => {
    await expect(guard.canActivate(contextFor('open').context)).resolves.toBe(true);
  });
});
