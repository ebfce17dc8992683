import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { screenshot, seriousAccessibilityViolations } from '../browser.js';
import { callApi } from '../session.js';
import { REPO_ROOT, type WorkflowWorld } from '../workflow-platform.js';

/** The library import's steps as the page shows them, and the settings: model keys (tested through the research service), the research webhook (test deliveries), and OIDC off. Registered by `console-workflows.e2e.spec.ts`, in its one world (`startWorkflowWorld`). */
export function libraryAndSettingsPages(world: WorkflowWorld): void {
  it('library import: the page says each step (reading the file, then importing it while the gateway has not answered), then what was added and updated, or that it is queued', async () => {
    const { page } = world;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Paper search' }).click();
    const status = page.locator('section[aria-labelledby=library-title] [role=status]');
    await status.waitFor({ state: 'attached' });
    // Every state of the status line, as the page shows it, recorded in the page as it changes (a script: this file has no DOM types).
    await page.evaluate(`(() => {
      const element = document.querySelector('section[aria-labelledby=library-title] [role=status]');
      const seen = (window.importSteps = []);
      new MutationObserver(() => {
        const shown = (element.getAttribute('data-import') ?? '') + '|' + (element.textContent ?? '');
        if (seen.at(-1) !== shown) seen.push(shown);
      }).observe(element, { attributes: true, childList: true, subtree: true, characterData: true });
    })()`);
    // The gateway's answer is held until the page has been seen importing.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked: () => void = () => undefined;
    const posted = new Promise<void>((resolve) => (asked = resolve));
    await page.route(
      (url) => url.pathname === '/library/references',
      async (route) => {
        asked();
        await held;
        await route.continue();
      },
    );
    try {
      await page.getByLabel('Reference file (.bib or .ris)', { exact: true }).setInputFiles(join(REPO_ROOT, 'apps/research/sample-library/openpaw-demo.bib'));
      await page.getByRole('button', { name: 'Import the references' }).click();
      await posted;
      await status.getByText('Importing openpaw-demo.bib…').waitFor();
      expect(await page.getByRole('button', { name: 'Import the references' }).isDisabled()).toBe(true);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      release();
      // The file again (the paper search test imported it): updated in place; or, while the research service is still busy
      // with that search's skills past the gateway's wait, queued (202): the page says which.
      await page.locator('section[aria-labelledby=library-title] [data-import=done]').waitFor({ timeout: 90_000 });
      expect(await status.textContent()).toMatch(/^(?:Imported openpaw-demo\.bib: (?:20 added, 0 updated|0 added, 20 updated), 0 skipped\.|openpaw-demo\.bib is queued: the research service has not answered yet\. .*)$/);
    } finally {
      release();
      await page.unroute((url) => url.pathname === '/library/references');
    }
    const steps = await page.evaluate<string[]>('window.importSteps');
    expect(steps.map((step) => step.split('|')[0])).toEqual(['reading', 'importing', 'done']);
    expect(steps.slice(0, 2).map((step) => step.split('|')[1])).toEqual(['Reading openpaw-demo.bib…', 'Importing openpaw-demo.bib…']);
  });

  it('settings: adds a model key, tests one through the research service (the provider answers 500) and removes one, sets the research webhook (its secret shown once), test-delivers through the research service (the receiver answers 500: failed; then 204: delivered, signed) and removes it; sign-in says OIDC is off (200, not 404)', async () => {
    const { platform, page, token, receiver, received, receiverAnswers } = world;
    expect(await callApi(platform.gatewayUrl, token, 'GET', '/auth/oidc')).toEqual({ status: 200, body: { configured: false, message: expect.stringContaining('no OIDC sign-in') as unknown } });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Model API keys' }).waitFor();
    await page.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    await page.getByLabel('API key', { exact: true }).fill('sk-ant-console-rosa-0123456789');
    await page.getByRole('button', { name: 'Save the key' }).click();
    await page.locator('tr[data-key=anthropic]').waitFor();
    expect(await page.locator('main').textContent()).not.toContain('sk-ant-console-rosa');
    expect(await callApi(platform.gatewayUrl, token, 'GET', '/research/keys')).toMatchObject({ body: { keys: expect.arrayContaining([expect.objectContaining({ provider: 'anthropic' })]) as unknown } });

    // "Test" a key: the research service makes one call with it (here to the wire server answering 500) and the row shows how it went.
    expect((await callApi(platform.gatewayUrl, token, 'PUT', '/research/keys/openai', { apiKey: 'sk-openai-console-rosa-0123456789' })).status).toBe(204);
    await page.reload();
    const openaiKey = page.locator('tr[data-key=openai]');
    // After the reload the list renders once the keys are fetched: wait for the row before counting in it.
    await openaiKey.waitFor();
    expect(await openaiKey.locator('[data-key-test=none]').count()).toBe(1);
    // One request, held by the gateway until the research service reports (`?wait=`), not a poll of the key list.
    const asked = page.waitForRequest((request) => request.method() === 'POST' && /\/research\/keys\/openai\/test\?wait=\d+$/.test(request.url()));
    await page.getByRole('button', { name: 'Test the openai key' }).click();
    expect((await (await asked).response())?.status()).toBe(200);
    const tested = openaiKey.locator('[data-key-test=provider_error]');
    await tested.waitFor({ timeout: 30_000 });
    expect(await tested.textContent()).toMatch(/The provider failed \(openai\/gpt-4o-mini, .*\): openai: HTTP 500: .*upstream exploded/);
    expect(await page.locator('main').textContent()).not.toContain('sk-openai-console-rosa');

    // The user's receiver (on 127.0.0.1: the research service here may call private addresses; the image's refuses them).
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/openpaw-hook`;
    await page.getByLabel('Webhook URL', { exact: true }).fill(hook);
    await page.getByRole('button', { name: 'Set the webhook' }).click();
    const secret = (await page.locator('[data-secret]').textContent()) ?? '';
    expect(secret.length).toBeGreaterThanOrEqual(24);
    await page.locator('[data-webhook=set]').getByText(hook).waitFor();
    expect(await page.locator('[data-delivery=none]').count()).toBe(1);
    // "Test" goes through the research service (the gateway never calls out): its one attempt is reported back.
    // The receiver answers 500 first: the report says the test failed, and why.
    receiverAnswers.push(500);
    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    const report = page.locator('[data-delivery=failed]');
    await report.waitFor({ timeout: 30_000 });
    expect(await report.textContent()).toMatch(/openpaw\.research\.WebhookTest, attempt 1, .*failed.*500/);
    // Then it answers 204: the page shows the test delivered.
    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    const delivered = page.locator('[data-delivery=delivered]');
    await delivered.waitFor({ timeout: 30_000 });
    expect(await delivered.textContent()).toMatch(/^Last delivery: openpaw\.research\.WebhookTest, attempt 1, .*: delivered$/);
    // Two POSTs reached the receiver, each the test event, signed.
    expect(received).toHaveLength(2);
    for (const { headers, body } of received) {
      expect(Object.keys(headers).some((name) => /signature/i.test(name))).toBe(true);
      expect(body).toContain('openpaw.research.WebhookTest');
    }
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'w8-settings');

    await page.getByRole('button', { name: 'Remove the anthropic key' }).click();
    await page.locator('tr[data-key=anthropic]').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Remove the webhook' }).click();
    await page.locator('[data-webhook=none]').waitFor();
    expect(await callApi(platform.gatewayUrl, token, 'GET', '/research/webhook')).toMatchObject({ status: 404 });
  });
}
