import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses, waitFor } from '@openpaw/testing';
import { type LlmWireServer, startOpenAiWireServer, type WireAnswer } from '@openpaw/testkit';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshot, seriousAccessibilityViolations } from './testing/browser.js';
import { callApi, devToken, signIn } from './testing/session.js';

const root = join(import.meta.dirname, '../../..');
const PROBLEM = 'A train travels 120 km in 2 hours. What is its average speed in km/h?';
const SOLUTION = JSON.stringify({
  can_solve: true,
  reason: null,
  steps: [{ title: 'Divide the distance by the time', detail: '\\(120 \\div 2 = 60\\)' }],
  final_answer: '\\(60\\) km/h',
});
// Long enough for the page to show the pending retry on this loaded machine; the test waits it out.
const BACKOFF_MS = 45_000;

/**
 * The pending step's last error and next retry, in a real browser: the tutor model (a scripted
 * OpenAI-compatible server on 127.0.0.1) is down for the solve's first try and answers the second
 * once the test has looked at the run waiting on its backoff.
 */
describe('the web console shows a failed try, its error and the next retry (Chromium, scripted model)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let model: LlmWireServer;
  let browser: Browser;
  let page: Page;
  let releaseSecondTry: () => void = () => undefined;
  const secondTryReleased = new Promise<void>((resolve) => (releaseSecondTry = resolve));
  let solveTries = 0;

  beforeAll(async () => {
    nats = await privateNatsServer();
    model = await startOpenAiWireServer(async (request): Promise<WireAnswer> => {
      if (!JSON.stringify(request.body).includes('can_solve')) return { status: 400, message: 'this scripted model only answers solve prompts' };
      solveTries += 1;
      if (solveTries === 1) return { status: 503, message: 'The server is overloaded' };
      await secondTryReleased;
      return { text: SOLUTION };
    });
    const llm = { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-e2e', OPENPAW_LLM_MAX_ATTEMPTS: '1' };
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_console_retries'),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      serviceEnv: {
        solve: { ...llm, OPENPAW_SOLVE_MATHS_ENGINE: 'check' },
        coordinator: { ...llm, OPENPAW_WORKFLOW_TIMINGS_JSON: JSON.stringify({ generate: { backoff: { baseMs: BACKOFF_MS, factor: 2, maxMs: BACKOFF_MS * 2 } } }) },
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  }, 240_000);

  afterAll(async () => {
    releaseSecondTry();
    await browser?.close();
    await platform?.stop();
    await model?.close();
    await nats?.dispose();
  });

  it('shows the solve step waiting on its backoff (last error, next try and its time), then the retry succeeding', async () => {
    const token = await devToken(platform.jwtSecret, 'console-rita');
    await signIn(page, platform.gatewayUrl, token);
    await page.getByLabel('Problem', { exact: true }).fill(PROBLEM);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(/#\/runs\/[0-9a-f-]{36}$/);
    const parentUrl = page.url();

    // The solve child run, once the gateway has projected it.
    const solveRunId = await waitFor(async () => {
      const { body } = await callApi(platform.gatewayUrl, token, 'GET', '/runs?type=solve_workflow');
      return (body as { items: { runId: string }[] }).items[0]?.runId;
    }, 'the solve child run in the runs list', 90_000);
    await page.goto(`${platform.gatewayUrl}/console/#/runs/${solveRunId}`);

    const pending = page.locator('.pending-step');
    await pending.locator('[data-last-error=llm_unavailable]').waitFor({ timeout: 60_000 });
    const nextRetry = pending.locator('[data-next-retry]');
    const nextTryAt = await nextRetry.getAttribute('data-next-retry');
    expect(nextTryAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await nextRetry.textContent()).toMatch(/^try 2 at /);
    expect(await pending.textContent()).toMatch(/try 1 of generate/);
    const failedTry = page.locator('.timeline [data-retry-scheduled="2"]');
    await failedTry.waitFor();
    expect(await failedTry.textContent()).toMatch(/try 1 of generate failed \(llm_unavailable\); try 2 at/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '9-run-pending-retry');

    // The backoff ends, try 2 goes to the model: no retry is scheduled any more, the last error stays.
    await pending.locator('[data-next-retry=none]').waitFor({ timeout: BACKOFF_MS * 3 });
    expect(await nextRetry.textContent()).toBe('none scheduled: try 2 was sent');
    await pending.locator('[data-last-error=llm_unavailable]').waitFor();

    // Meanwhile, on the ops page: the problem run in flight under the free tier (no tier claim), its solve child by workflow.
    const operator = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const opsPage = await operator.newPage();
    await signIn(opsPage, platform.gatewayUrl, await devToken(platform.jwtSecret, 'console-olga', { roles: ['admin'] }));
    await opsPage.goto(`${platform.gatewayUrl}/console/#/ops`);
    await opsPage.getByRole('heading', { name: 'In-flight runs' }).waitFor();
    expect(await opsPage.locator('tr[data-tier=free] [data-column=runs]').textContent()).toBe('1');
    expect(await opsPage.locator('tr[data-tier]').count()).toBe(1);
    expect(await opsPage.locator('tr[data-workflow=solve_workflow] [data-column=runs]').textContent()).toBe('1');
    expect(await opsPage.locator('tr[data-workflow=retrieve_or_generate] [data-column=runs]').textContent()).toBe('1');
    expect(await seriousAccessibilityViolations(opsPage)).toEqual([]);
    await screenshot(opsPage, '9b-ops-in-flight');

    releaseSecondTry();
    await page.locator('.run-state [data-state=SUCCEEDED]').waitFor({ timeout: 90_000 });
    expect(await page.locator('.pending-step').count()).toBe(0);
    expect(solveTries).toBe(2);
    await page.goto(parentUrl);
    await page.locator('.run-state [data-state=SUCCEEDED]').waitFor({ timeout: 90_000 });
    // Nothing in flight any more (the video is a background run; it may still render).
    await opsPage.locator('tr[data-tier]').first().waitFor({ state: 'detached', timeout: 30_000 });
    await operator.close();
  });
});
