import type { Page } from 'playwright-core';
import { screenshot, seriousAccessibilityViolations } from '../browser.js';
import { callApi } from '../session.js';
import { REJECTED_KEY, UPDATED_KEY, UPDATED_KEY_REPORT, waitOrExplain, type WorkflowWorld } from '../workflow-platform.js';

/** Waits for the research on the page to complete; if it does not, a screenshot (`shot`) and the page's text say where it stopped. */
function researchCompleted(page: Page, shot: string): Promise<void> {
  return waitOrExplain(page, page.locator('.run-state [data-state=completed]'), 90_000, shot, 'the research did not complete');
}

/** Creates a research draft of `question` with `providers` ticked on the Research page; `onDraft` runs on the draft before it is started. */
async function startResearch(page: Page, question: string, providers: readonly string[], onDraft: () => Promise<void> = () => Promise.resolve()): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Research' }).click();
  await page.getByLabel('Question', { exact: true }).fill(question);
  for (const provider of providers) await page.getByRole('checkbox', { name: provider }).check();
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.getByRole('heading', { name: /^Draft: / }).waitFor();
  await onDraft();
  await page.getByRole('button', { name: 'Start research' }).click();
  await page.waitForURL(/#\/research\/[0-9a-f-]{36}$/);
}

/** Research (spec 05) in the console: the human gate after a partial failure (proceed; retry, then cancel), and a rejected key updated in the settings, then retried from the page. Registered by `console-workflows.e2e.spec.ts`, in its one world (`startWorkflowWorld`). */
export function researchPages(world: WorkflowWorld): void {
  it("research: creates a draft, starts it, shows each leg, proceeds at the gate after a partial failure, shows spec 05's 'synthesis not available' with the one report, and says no share page is published", async () => {
    const { platform, page, token } = world;
    expect((await callApi(platform.gatewayUrl, token, 'PUT', '/research/keys/openai', { apiKey: 'sk-openai-console-rosa-0123456789' })).status).toBe(204);
    await startResearch(page, 'How efficient are cold-climate heat pumps compared with gas boilers?', ['openai', 'local'], async () => {
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await screenshot(page, 'w1-research-draft');
    });

    // The openai leg fails (its server answers 500), the local one succeeds: the human gate.
    const gate = page.locator('[data-gate=awaiting_confirmation]');
    await gate.waitFor({ timeout: 90_000 });
    expect(await page.locator('tr[data-leg=openai]').getAttribute('data-status')).toBe('failed');
    expect(await page.locator('tr[data-leg=local]').getAttribute('data-status')).toBe('completed');
    expect(await gate.textContent()).toContain('openai failed');
    expect(await gate.getByRole('button').allTextContents()).toEqual(['Proceed with the successful reports', 'Retry the failed models', 'Cancel the research']);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'w2-research-gate');

    await gate.getByRole('button', { name: 'Proceed with the successful reports' }).click();
    await researchCompleted(page, 'w-research-not-completed');
    // One report left: spec 05 shows it alone, with "synthesis not available".
    await page.getByText('Synthesis not available', { exact: false }).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Synthesis' }).count()).toBe(0);
    expect((await page.locator('[data-report=local] .synthesis').textContent())?.length).toBeGreaterThan(20);
    expect(await page.locator('[data-report=openai]').count()).toBe(0);
    // Without a synthesis the run completes at once, without the research service: no share page is published.
    await page.getByText('no share page is published', { exact: false }).first().waitFor();
    expect(await page.getByLabel('Share link', { exact: true }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'w3-research-completed');
  });

  it('research: retries the failed model at the gate (it fails again: the gate comes back with one retry counted), then cancels the research', async () => {
    const { page } = world;
    await startResearch(page, 'What limits the lifetime of lithium iron phosphate batteries?', ['openai', 'local']);

    const gate = page.locator('[data-gate=awaiting_confirmation]');
    await gate.filter({ hasText: 'retries so far: 0' }).waitFor({ timeout: 90_000 });
    await gate.getByRole('button', { name: 'Retry the failed models' }).click();
    // The openai leg runs again and fails again (its server still answers 500): the gate again, one retry counted.
    await gate.filter({ hasText: 'retries so far: 1' }).waitFor({ timeout: 90_000 });
    expect(await page.locator('tr[data-leg=openai]').getAttribute('data-status')).toBe('failed');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'w3b-research-gate-after-retry');

    await gate.getByRole('button', { name: 'Cancel the research' }).click();
    await page.locator('.run-state [data-state=failed]').waitFor({ timeout: 60_000 });
    await page.getByRole('alert').filter({ hasText: 'Cancelled by user' }).waitFor();
    expect(await page.locator('[data-gate]').count()).toBe(0);
  });

  it('research: a rejected key fails the run with "update your key, then retry"; the user updates the key in the settings and retries from the page, and the retry uses the new key', async () => {
    const { platform, openai, page, token } = world;
    expect((await callApi(platform.gatewayUrl, token, 'PUT', '/research/keys/openai', { apiKey: REJECTED_KEY })).status).toBe(204);
    await startResearch(page, 'How efficient are heat pumps in cold climates?', ['openai']);
    const runUrl = page.url();

    // Its one leg fails on the rejected key: the run fails, saying what to do, and offers the retry.
    await page.locator('.run-state [data-state=failed]').waitFor({ timeout: 90_000 });
    expect(await page.locator('tr[data-leg=openai]').getAttribute('data-status')).toBe('failed');
    expect(await page.getByRole('alert').textContent()).toBe('All LLM calls failed: openai rejected the API key — update your key, then retry');
    const retry = page.locator('[data-retry=failed]');
    expect(await retry.textContent()).toContain('A provider rejected your API key: update your key in the settings, then retry.');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'w3c-research-rejected-key');

    // The user follows the link, updates the key, and comes back to the run.
    await retry.getByRole('link', { name: 'update your key in the settings' }).click();
    await page.getByRole('heading', { name: 'Model API keys' }).waitFor();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('API key', { exact: true }).fill(UPDATED_KEY);
    const saved = page.waitForResponse((response) => response.request().method() === 'PUT' && response.url().endsWith('/research/keys/openai'));
    await page.getByRole('button', { name: 'Save the key' }).click();
    expect((await saved).status()).toBe(204);
    await page.goto(runUrl);
    await page.getByRole('button', { name: 'Retry the research' }).click();
    await researchCompleted(page, 'w-research-retry-not-completed');
    expect(await page.locator('[data-report=openai] .synthesis').textContent()).toBe(UPDATED_KEY_REPORT);
    expect(await page.locator('tr[data-leg=openai] td').nth(2).textContent()).toBe('2');
    expect(await page.locator('[data-retry]').count()).toBe(0);
    // The provider saw the rejected key once (not retried by the client) and the updated key on the retry.
    expect(openai.requests.filter((request) => request.apiKey === REJECTED_KEY)).toHaveLength(1);
    expect(openai.requests.filter((request) => request.apiKey === UPDATED_KEY).length).toBeGreaterThanOrEqual(1);
  });
}
