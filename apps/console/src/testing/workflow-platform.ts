import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { type LlmWireServer, startOpenAiWireServer } from '@openpaw/testkit';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshot } from './browser.js';
import { devToken, signIn } from './session.js';

/** The repository root (the demo library and the build live under it). */
export const REPO_ROOT = join(import.meta.dirname, '../../../..');

/** The openai key the wire server rejects (401), the one the user updates to (a report), and that report; any other key gets a 500. */
export const REJECTED_KEY = 'sk-openai-console-rosa-rejected-0123456789';
export const UPDATED_KEY = 'sk-openai-console-rosa-updated-0123456789';
export const UPDATED_KEY_REPORT = 'Heat pumps deliver two to four units of heat per unit of electricity in cold climates.';

/** What the workflow pages' tests share: one platform, one browser and one signed-in page for the whole file. */
export interface WorkflowWorld {
  readonly nats: NatsServerHandle;
  readonly platform: RunningPlatform;
  readonly openai: LlmWireServer;
  readonly browser: Browser;
  /** The page of `console-rosa`, signed in once. */
  readonly page: Page;
  readonly token: string;
  /** The user's webhook receiver on 127.0.0.1: each POST it got, answered with the next of `receiverAnswers` (204 once empty). */
  readonly receiver: Server;
  readonly received: { headers: IncomingHttpHeaders; body: string }[];
  readonly receiverAnswers: number[];
}

/** What `startWorkflowWorld` keeps until its `beforeAll` has run. */
type Started = Omit<WorkflowWorld, 'received' | 'receiverAnswers'>;
const STARTED_KEYS = ['nats', 'platform', 'openai', 'browser', 'page', 'token', 'receiver'] as const satisfies readonly (keyof Started)[];

/**
 * Registers the hooks of the workflow pages' file: before all, the platform (coordinator, research,
 * visual-search, gateway) on a private nats-server and a fresh database, the OpenAI wire server, the
 * webhook receiver and Chromium signed in as `console-rosa`; after each test, no Content Security
 * Policy violation; after all, everything stopped. Answers the world, readable inside tests (a
 * field read before `beforeAll` ran throws, naming it).
 */
export function startWorkflowWorld(): WorkflowWorld {
  let started: Partial<Started> = {};
  const received: WorkflowWorld['received'] = [];
  const receiverAnswers: number[] = [];
  const policyViolations: string[] = [];
  const need = <K extends keyof Started>(key: K): Started[K] => {
    const value = started[key];
    if (value === undefined) throw new Error(`the workflow world has no ${key} yet: read it inside a test`);
    return value;
  };

  beforeAll(async () => {
    // A key the provider rejects gets its 401; the key the user updates to gets a report; any other, a 500.
    const openai = await startOpenAiWireServer((request) =>
      request.apiKey === REJECTED_KEY ? { status: 401, message: 'Incorrect API key provided', errorType: 'invalid_api_key' } : request.apiKey === UPDATED_KEY ? { text: UPDATED_KEY_REPORT } : { status: 500, message: 'upstream exploded' },
    );
    started = { ...started, openai };
    const receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(receiverAnswers.shift() ?? 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    started = { ...started, receiver };
    const nats = await privateNatsServer();
    started = { ...started, nats };
    const platform = await startPlatformProcesses({
      root: REPO_ROOT,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_console_workflows'),
      services: ['coordinator', 'research', 'visual-search', 'gateway'],
      // Webhooks may go to the receiver on 127.0.0.1 (the test-only entrypoint; the image's refuses private addresses).
      entries: { research: 'testing/private-webhooks-main.js' },
      env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      serviceEnv: {
        research: {
          OPENAI_BASE_URL: openai.baseUrl,
          OPENPAW_LLM_MAX_ATTEMPTS: '1',
          OPENPAW_RESEARCH_MODELS: JSON.stringify({ openai: 'openai/gpt-4o-mini' }),
          // Paper search's skills are the local stand-ins (every model local): only the research legs, with the user's key, reach the failing server.
          OPENPAW_LLM_MODEL: 'local/deterministic',
          OPENPAW_LLM_FALLBACK_MODELS: 'local/deterministic',
        },
        'visual-search': { LOG_LEVEL: 'info', OPENPAW_VISUAL_WORLD_SEED: '7' },
      },
    });
    started = { ...started, platform };
    const token = await devToken(platform.jwtSecret, 'console-rosa');
    const browser = await launchChromium();
    started = { ...started, browser, token };
    const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
    });
    await signIn(page, platform.gatewayUrl, token);
    started = { ...started, page };
  }, 240_000);

  afterAll(async () => {
    const { browser, platform, nats, openai, receiver } = started;
    await browser?.close();
    await platform?.stop();
    await nats?.dispose();
    await openai?.close();
    await new Promise((resolve) => (receiver === undefined ? resolve(undefined) : receiver.close(resolve)));
  });

  afterEach(() => expect(policyViolations).toEqual([]));

  const world = { received, receiverAnswers };
  for (const key of STARTED_KEYS) Object.defineProperty(world, key, { get: () => need(key), enumerable: true });
  // Every other field is one of the getters just defined.
  return world as WorkflowWorld;
}

/** An operator (`console-olga`, role admin) in a browser context of their own, on the console's `route` (`#/ops`); `close` ends the context. */
export async function adminPage(world: WorkflowWorld, route: string): Promise<{ readonly page: Page; readonly close: () => Promise<void> }> {
  const context = await world.browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  await signIn(page, world.platform.gatewayUrl, await devToken(world.platform.jwtSecret, 'console-olga', { roles: ['admin'] }));
  await page.goto(`${world.platform.gatewayUrl}/console/${route}`);
  return { page, close: () => context.close() };
}

/** Waits for `locator`-like `what` up to `timeout`; if it does not come, a screenshot (`shot`) and the page's text say where the page stopped. */
export async function waitOrExplain(page: Page, what: { waitFor(options: { timeout: number }): Promise<void> }, timeout: number, shot: string, expected: string): Promise<void> {
  await what.waitFor({ timeout }).catch(async (error: unknown) => {
    await screenshot(page, shot);
    throw new Error(`${expected} on the page: ${await page.locator('main').innerText()}`, { cause: error });
  });
}
