import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshot, seriousAccessibilityViolations } from './testing/browser.js';
import { renderProblemPng } from '@openpaw/testkit';
import { WORKFLOW_TABLES } from './app/api/workflow-tables.js';

const root = join(import.meta.dirname, '../../..');
const STUDY_MATERIAL =
  'Photosynthesis is the process by which green plants use sunlight, water and carbon dioxide to make glucose and release oxygen. ' +
  'It takes place in the chloroplasts, which contain the green pigment chlorophyll. The light-dependent reactions make ATP and NADPH; ' +
  'the Calvin cycle then fixes carbon dioxide into sugars.';
const RUN_URL = /#\/runs\/([0-9a-f-]{36})$/;

/** A dev token as the gateway signs it (`dev-token.ts`): HS256 with the platform's secret. */
async function devToken(secret: string, userId: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer('openpaw')
    .setAudience('openpaw-api')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/**
 * A web page holding a problem, on 127.0.0.1: `/held` answers only once the test releases it, which
 * keeps a run in INGESTING for as long as the test looks at its pending step.
 */
async function startProblemPageServer(): Promise<{ url: (path: string) => string; release: () => void; server: Server }> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((request, response) => {
    void (request.url === '/held' ? released : Promise.resolve()).then(() => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(request.url === '/held' ? 'Solve for n: 5n + 5 = 40' : 'Solve for y: 4y - 2 = 10');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: (path) => `http://127.0.0.1:${port}${path}`, release, server };
}

describe('the web console in a real browser (Chromium), against the platform', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problemPages: Awaited<ReturnType<typeof startProblemPageServer>>;
  const policyViolations: string[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    problemPages = await startProblemPageServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_console'),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'artifacts', 'gateway'],
      // The artifacts service's local model (deterministic, no account), as in the artifacts e2e spec.
      serviceEnv: { artifacts: { OPENPAW_LLM_MODEL: 'local/deterministic' } },
      // The test-only entrypoint: ingestion may fetch the problem pages this spec serves on 127.0.0.1.
      entries: { ingestion: 'testing/loopback-main.js' },
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
    // Anything the console's CSP blocks is a bug in the console (or in the policy).
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    problemPages?.release();
    problemPages?.server.close();
    await platform?.stop();
    await nats?.dispose();
  });

  afterEach(() => expect(policyViolations).toEqual([]));

  it('is served by the gateway at /console with its security and cache headers', async () => {
    const response = await page.goto(`${platform.gatewayUrl}/console`);
    expect(page.url()).toBe(`${platform.gatewayUrl}/console/`);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['cache-control']).toBe('no-cache');
    const bundle = await page.request.get(await page.locator('script[type=module]').getAttribute('src').then((src) => new URL(src ?? '', page.url()).href));
    expect(bundle.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('refuses a wrong token, then signs in with the dev token', async () => {
    await page.getByRole('heading', { name: 'Sign in to the OpenPaw console' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByLabel('Access token', { exact: true }).fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'did not accept this token' }).waitFor();
    await screenshot(page, '1-sign-in-refused');

    await page.getByLabel('Access token', { exact: true }).fill(await devToken(platform.jwtSecret, 'console-alice'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Solve a problem' }).waitFor();
  });

  it('submits a text problem and follows the run live to SUCCEEDED with the MathML solution and its timeline', async () => {
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByLabel('Problem', { exact: true }).fill('Solve for x: 2x + 3 = 7');
    await screenshot(page, '2-submit-problem');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(RUN_URL);

    const state = page.locator('.run-state [data-state]');
    await state.and(page.locator('[data-state=SUCCEEDED]')).waitFor({ timeout: 90_000 });
    // spec 01's main path, the current state marked for assistive technology.
    await page.locator('.progress li[aria-current=step][data-state=SUCCEEDED]').waitFor();
    const solution = page.frameLocator('iframe[title=Solution]');
    await solution.locator('math').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('iframe[title=Solution]').getAttribute('sandbox')).toBe('');
    const timeline = page.locator('.timeline li');
    await timeline.and(page.locator('[data-state=SUCCEEDED]')).waitFor();
    const timelineStates = await Promise.all((await timeline.all()).map((item) => item.getAttribute('data-state')));
    expect(timelineStates).toEqual(expect.arrayContaining(['INGESTING', 'RETRIEVING', 'SUCCEEDED']));
    // The state diagram is drawn from the coordinator's table: every state, the path taken bold, the end state current.
    const diagram = page.locator('svg.state-diagram');
    await diagram.locator('[data-state=SUCCEEDED][data-status=current]').waitFor();
    expect(await diagram.locator('g[data-state]').count()).toBe(WORKFLOW_TABLES.find((table) => table.type === 'retrieve_or_generate')?.states.length);
    expect(await diagram.locator('[data-state=INGESTING]').getAttribute('data-status')).toBe('visited');
    expect(await diagram.locator('[data-state=CANCELLED]').getAttribute('data-status')).toBe('unvisited');
    expect(await diagram.locator('[data-edge="INITIATED→INGESTING"]').getAttribute('data-taken')).toBe('true');
    expect(await diagram.locator('[data-edge="INGESTING→FAILED"]').getAttribute('data-taken')).toBeNull();
    expect(await page.locator('.pending-step').count()).toBe(0);
    // The video: being rendered, then played from the gateway's /runs/{id}/video.
    await page.locator('video[data-video=ready]').waitFor({ timeout: 120_000 });
    expect(await page.locator('video[data-video=ready]').evaluate((video) => (video as unknown as { readyState: number }).readyState)).toBeGreaterThan(0);
    // A share link that works without a token.
    await page.getByRole('button', { name: 'Create a share link to the solution' }).click();
    const shared = await page.getByLabel('Share link', { exact: true }).inputValue();
    expect(shared).toMatch(new RegExp(`^${platform.gatewayUrl}/v1/shared/`));
    const sharedContent = await fetch(shared);
    expect(sharedContent.status).toBe(200);
    expect(await sharedContent.text()).toContain('<math');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '3-run-succeeded-with-solution');
  });

  it('submits a problem by web address and shows what the run waits for while the page is fetched', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Solve a problem' }).click();
    await page.getByRole('radio', { name: 'Web address (URL)' }).check();
    await page.getByLabel('Web address', { exact: true }).fill(problemPages.url('/held'));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(RUN_URL);
    // The page is held: the run waits in INGESTING, which the pending step and the diagram show.
    await page.locator('.pending-step [data-pending-state=INGESTING]').waitFor({ timeout: 60_000 });
    await page.locator('svg.state-diagram [data-state=INGESTING][data-status=current]').waitFor();
    expect(await page.locator('.pending-step').textContent()).toMatch(/Retrieving/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '3b-run-pending-step');
    problemPages.release();
    await page.locator('.run-state [data-state=SUCCEEDED]').waitFor({ timeout: 90_000 });
    await page.locator('svg.state-diagram [data-state=SUCCEEDED][data-status=current]').waitFor();
  });

  it('submits an image: a refused file gets the gateway\'s 415 message, a picture of a problem is solved', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Solve a problem' }).click();
    await page.getByRole('radio', { name: 'Image' }).check();
    await page.getByLabel('Image of the problem', { exact: true }).setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    await page.getByRole('button', { name: 'Submit' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/image/i);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '3c-submit-image-refused');

    await page.getByLabel('Image of the problem', { exact: true }).setInputFiles({ name: 'problem.png', mimeType: 'image/png', buffer: await renderProblemPng('Solve for x: 3x + 4 = 19') });
    await page.getByRole('img', { name: /The chosen image, problem.png/ }).waitFor();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(RUN_URL);
    await page.locator('.run-state [data-state=SUCCEEDED]').waitFor({ timeout: 120_000 });
  });

  it('lists the run, filters by state, and opens its detail page with the timeline', async () => {
    const runId = RUN_URL.exec(page.url())?.[1] ?? '';
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const runLink = page.getByRole('link', { name: new RegExp(`run ${runId}`) });
    await runLink.waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '4-runs');

    await page.getByLabel('State', { exact: true }).selectOption('FAILED');
    await page.getByRole('status').filter({ hasText: '0 runs shown.' }).waitFor();
    await page.getByLabel('State', { exact: true }).selectOption('SUCCEEDED');
    await page.getByLabel('Workflow', { exact: true }).selectOption('retrieve_or_generate');
    await runLink.waitFor();
    expect(page.url()).toContain('#/runs?type=retrieve_or_generate&state=SUCCEEDED');
    await screenshot(page, '5-runs-filtered');

    // Run id search and the creation day range (no user filter: this token has no admin role).
    expect(await page.getByLabel(/^User/).count()).toBe(0);
    await page.getByLabel('Run id (or its beginning)').fill(runId.slice(0, 8).toUpperCase());
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: '1 run shown.' }).waitFor();
    await runLink.waitFor();
    expect(page.url()).toContain(`q=${runId.slice(0, 8)}`);
    await page.getByLabel('Started on or after').fill('2099-01-01');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: '0 runs shown.' }).waitFor();
    await page.getByLabel('Started on or after').fill('');
    await page.getByLabel('Started on or before').fill('2099-01-01');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await runLink.waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await runLink.click();
    await page.waitForURL(RUN_URL);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.locator('.timeline li[data-state=SUCCEEDED]').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '6-run-detail');
  });

  it('saves the current filters as a view, finds it after a reload, applies it and deletes it', async () => {
    await page.goto(`${platform.gatewayUrl}/console/#/runs?type=retrieve_or_generate&state=FAILED`);
    await page.getByRole('heading', { name: 'Saved views' }).waitFor();
    await page.getByText('None yet').waitFor();
    // A name the gateway refuses: its 400 names the field.
    await page.getByLabel('View name', { exact: true }).fill('   ');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('alert').filter({ hasText: 'name: a view needs a name' }).waitFor();
    await page.getByLabel('View name', { exact: true }).fill('Failed problems');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.locator('[data-saved-view="Failed problems"]').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '5b-runs-saved-view');

    // Kept by the gateway, not the page: a reload on the unfiltered list still has it, and it applies its filters.
    await page.goto(`${platform.gatewayUrl}/console/#/runs`);
    await page.reload();
    const view = page.getByRole('link', { name: 'Failed problems' });
    await view.waitFor();
    await view.click();
    await page.waitForURL(/#\/runs\?type=retrieve_or_generate&state=FAILED$/);
    expect(await page.getByLabel('State', { exact: true }).inputValue()).toBe('FAILED');
    await page.getByRole('status').filter({ hasText: '0 runs shown.' }).waitFor();

    await page.getByRole('button', { name: 'Delete the view Failed problems' }).click();
    await page.getByText('None yet').waitFor();
    await page.reload();
    await page.getByText('None yet').waitFor();
  });

  it('adds study material, asks for a quiz, follows the job to completed and shows the quiz', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Study artifacts' }).click();
    await page.getByRole('heading', { name: 'Study artifacts' }).waitFor();
    await page.getByLabel('Notebook', { exact: true }).fill('nb-console');
    await page.getByLabel('Study material', { exact: true }).fill(STUDY_MATERIAL);
    await page.getByRole('radio', { name: 'quiz' }).check();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '7-study-artifacts');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/#\/artifacts\/[0-9a-f-]{36}$/, { timeout: 60_000 });

    await page.locator('.job-status[data-status=completed]').waitFor({ timeout: 90_000 });
    expect(await page.getByLabel('Progress', { exact: true }).getAttribute('value')).toBe('100');
    await page.getByRole('heading', { name: 'Quiz', exact: true }).waitFor();
    expect(await page.locator('.quiz-question').count()).toBeGreaterThan(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '8-artifact-job-quiz');
  });
});
