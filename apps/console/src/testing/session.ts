import { SignJWT } from 'jose';
import type { Page } from 'playwright-core';

/** A dev token as the gateway signs it (`dev-token.ts`): HS256 with the platform's secret; `claims` adds e.g. `roles`. */
export async function devToken(secret: string, userId: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer('openpaw')
    .setAudience('openpaw-api')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/** Opens the console and signs in with `token` as a person would. */
export async function signIn(page: Page, gatewayUrl: string, token: string): Promise<void> {
  await page.goto(`${gatewayUrl}/console/`);
  await page.getByLabel('Access token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Solve a problem' }).waitFor();
}

/** A call of the gateway's API as the test's own setup (not the console's): JSON in, status and JSON out. */
export async function callApi(gatewayUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}
