import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { GatewayClient } from './e2e-client.js';

const root = join(import.meta.dirname, '../../../..');

/** An OpenAI-compatible endpoint in an outage: every chat completion answers 503, as the real API does under load. */
async function startOutage(): Promise<{ baseUrl: string; requests: () => number; server: Server }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    response.writeHead(503, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error', code: null } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests: () => requests, server };
}

describe('RetrieveOrGenerate when parts degrade', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let outage: Awaited<ReturnType<typeof startOutage>>;
  let carol: GatewayClient;

  beforeAll(async () => {
    nats = await privateNatsServer();
    outage = await startOutage();
    const llm = {
      OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini',
      OPENPAW_LLM_FALLBACK_MODELS: 'local/deterministic',
      OPENAI_BASE_URL: outage.baseUrl,
      OPENAI_API_KEY: 'sk-e2e',
      OPENPAW_LLM_MAX_ATTEMPTS: '2',
    };
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_rog_degraded'),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      serviceEnv: {
        // The maths engine as checker only: this run is about the model path degrading, so the model must be asked.
        solve: { ...llm, OPENPAW_SOLVE_MATHS_ENGINE: 'check' },
        // A short index step timeout: with retrieval down, the run must still succeed and reindex later.
        coordinator: { ...llm, OPENPAW_WORKFLOW_TIMINGS_JSON: JSON.stringify({ index: { timeoutMs: 1_000 } }) },
      },
    });
    carol = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'carol');
  });

  afterAll(async () => {
    await platform.stop();
    outage.server.close();
    await nats.dispose();
  });

  it('retries the failing primary model, falls back, and succeeds; with retrieval down at INDEXING the run still SUCCEEDS and reindexes in the background', async () => {
    const submitted = await carol.submitText('4x + 1 = 9');
    // Retrieval answers the search, then goes down while the solution is generated, so the index
    // command finds nobody until the background reindex run's command is picked up after the restart.
    await carol.untilState(submitted.body.run_id, ['GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED', 'FAILED']);
    await platform.kill('retrieval');
    const solved = await carol.untilTerminal(submitted.body.run_id);
    expect(solved.state).toBe('SUCCEEDED');
    expect(solved.view).toMatchObject({ outcome: 'new' });
    expect(outage.requests()).toBeGreaterThanOrEqual(2);
    const reindex = async () => ((await (await carol.request('/runs?type=reindex_asset')).json()) as { items: Array<{ state: string }> }).items;
    expect((await reindex()).length).toBe(1);
    await platform.start('retrieval');
    const deadline = Date.now() + 60_000;
    while (!(await reindex()).some((r) => r.state === 'SUCCEEDED')) {
      if (Date.now() > deadline) throw new Error(`reindex_asset did not succeed: ${JSON.stringify(await reindex())}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Indexed now: the same problem from another user is a retrieval hit on the same asset.
    const dave = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'dave');
    const copy = await dave.submitText('4x + 1 = 9', 60);
    expect(copy.body.result).toMatchObject({ outcome: 'hit', output: { asset_version_id: (solved.view['output'] as { asset_version_id: string }).asset_version_id } });
  });

  it('fails with the solve error code when nothing can solve it and nothing is close', async () => {
    const failed = await carol.submitText('Prove that there are infinitely many prime numbers.', 60);
    expect(failed.body.result).toMatchObject({ status: 'failed', error_code: 'cannot_solve' });
  });
});
