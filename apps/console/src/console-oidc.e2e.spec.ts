import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { type LocalOidcProvider, startLocalOidcProvider } from '@openpaw/testkit';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshot, seriousAccessibilityViolations } from './testing/browser.js';

const root = join(import.meta.dirname, '../../..');
const CLIENT_ID = 'openpaw-console';

/** The console's OIDC sign-in in a real browser: the redirect to an OpenID provider on 127.0.0.1 and back (code + PKCE). */
describe('the web console signs in with OIDC (Chromium, local OpenID provider)', () => {
  let provider: LocalOidcProvider;
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    provider = await startLocalOidcProvider({ audience: 'openpaw-api', clientId: CLIENT_ID });
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_console_oidc'),
      services: ['gateway'],
      serviceEnv: {
        gateway: { OPENPAW_OIDC_ISSUER: provider.issuer, OPENPAW_JWT_ISSUER: provider.issuer, OPENPAW_OIDC_CLIENT_ID: CLIENT_ID, OPENPAW_OIDC_ROLES_CLAIM: 'realm_access.roles' },
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await nats?.dispose();
    await provider?.close();
  });

  it('refuses a redirect back it did not start (the state does not match)', async () => {
    await page.goto(`${platform.gatewayUrl}/console/?code=forged&state=forged`);
    await page.getByRole('alert').filter({ hasText: 'its state does not match' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    expect(provider.tokenRequests).toEqual([]);
  });

  it('goes to the provider and back with a code, redeemed with its PKCE verifier, and is signed in with the provider\'s roles', async () => {
    provider.signInAs({ subject: 'kc-olga', claims: { realm_access: { roles: ['admin'] } } });
    await page.goto(`${platform.gatewayUrl}/console/`);
    await page.getByRole('heading', { name: 'With your organisation’s account' }).waitFor();
    expect(await page.locator('main').textContent()).toContain(provider.issuer);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '10-sign-in-oidc');

    const toProvider = page.waitForRequest((request) => request.url().startsWith(`${provider.issuer}/authorize`));
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).click();
    const authorize = new URL((await toProvider).url());
    expect(authorize.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${platform.gatewayUrl}/console/`);

    await page.getByRole('heading', { name: 'Solve a problem' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    expect(provider.tokenRequests).toEqual([{ grantType: 'authorization_code', pkceMatched: true }]);
    // The provider's token, with the admin role from its realm_access.roles claim: the operations page opens.
    await page.goto(`${platform.gatewayUrl}/console/#/ops`);
    await page.getByRole('heading', { name: 'Lanes' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    // The console reads the roles where the gateway says the provider puts them: the admin's user filter is offered.
    await page.goto(`${platform.gatewayUrl}/console/#/runs`);
    await page.getByLabel('User (admins; * for everyone)', { exact: true }).waitFor();
  });
});
