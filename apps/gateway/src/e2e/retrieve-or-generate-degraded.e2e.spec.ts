import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import pg from 'pg';
import { GatewayClient } from './e2e-client.js';
import { type ChatCompletionRequest, type ScriptedModelServer, type ScriptedReply, startScriptedModelServer } from './scripted-model-server.js';

const root = join(import.meta.dirname, '../../../..');

const PRIMARY = 'gpt-4o-mini';
const FALLBACK = 'gpt-4.1-mini';
/** The provider's own tries per model call (OPENPAW_LLM_MAX_ATTEMPTS). */
const PROVIDER_TRIES = 2;

/**
 * An OpenAI-compatible endpoint in a partial outage: the primary model answers 503 to everything (as
 * the real API does under load); the fallback model answers 503 to its first PROVIDER_TRIES requests
 * too, so the first solve attempt (primary, then the fallback within the attempt) fails as a whole and
 * only the saga's retry (attempt 2, on the fallback model) gets through. It solves "4x + 1 = 9" and
 * says it cannot solve anything else.
 */
function partialOutage(): (request: ChatCompletionRequest) => ScriptedReply {
  let fallbackRequests = 0;
  return (request) => {
    const overloaded = { status: 503, message: 'The server is overloaded' };
    if (request.model === PRIMARY) return overloaded;
    fallbackRequests += 1;
    if (fallbackRequests <= PROVIDER_TRIES) return overloaded;
    const problem = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const answer = problem.includes('4x+1=9')
      ? { can_solve: true, reason: null, steps: [{ title: 'Subtract 1', detail: '\\(4x = 8\\)' }, { title: 'Divide by 4', detail: '\\(x = 2\\)' }], final_answer: '\\(x = 2\\)' }
      : { can_solve: false, reason: 'not a problem this model can solve reliably', steps: [], final_answer: null };
    return { content: JSON.stringify(answer) };
  };
}

describe('RetrieveOrGenerate when parts degrade', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let outage: ScriptedModelServer;
  let carol: GatewayClient;
  let databaseUrl: string;

  beforeAll(async () => {
    nats = await privateNatsServer();
    outage = await startScriptedModelServer(partialOutage());
    const llm = {
      OPENPAW_LLM_MODEL: `openai/${PRIMARY}`,
      OPENPAW_LLM_FALLBACK_MODELS: `openai/${FALLBACK}`,
      OPENAI_BASE_URL: outage.baseUrl,
      OPENAI_API_KEY: 'sk-e2e',
      OPENPAW_LLM_MAX_ATTEMPTS: String(PROVIDER_TRIES),
    };
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: (databaseUrl = await freshDatabase('e2e_rog_degraded')),
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
    await outage.close();
    await nats.dispose();
  });

  async function stepLog(runId: string): Promise<{ step: string; payload: Record<string, unknown> }[]> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ step_name: string; payload: Record<string, unknown> }>(
        'select step_name, payload from coordinator.workflow_step_logs where workflow_run_id = $1 order by id',
        [runId],
      );
      return rows.rows.map((r) => ({ step: r.step_name, payload: r.payload }));
    } finally {
      await db.end();
    }
  }

  it('retries the failing primary model, falls back, and succeeds; with retrieval down at INDEXING the run still SUCCEEDS and reindexes in the background', async () => {
    const submitted = await carol.submitText('4x + 1 = 9');
    // Retrieval answers the search, then goes down while the solution is generated, so the index
    // command finds nobody until the background reindex run's command is picked up after the restart.
    await carol.untilState(submitted.body.run_id, ['GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED', 'FAILED']);
    await platform.kill('retrieval');
    const solved = await carol.untilTerminal(submitted.body.run_id);
    expect(solved.state).toBe('SUCCEEDED');
    expect(solved.view).toMatchObject({ outcome: 'new' });
    // The provider retried the primary, then fell back within attempt 1; attempt 1 failed as a whole.
    expect(outage.requests.filter((r) => r.model === PRIMARY)).toHaveLength(PROVIDER_TRIES);
    // The saga retried GENERATING_SOLUTION: the solve child's attempt 2, on the fallback model, after a backoff.
    const solveRun = ((await (await carol.request('/runs?type=solve_workflow&view=full')).json()) as { items: { runId: string; parentRunId: string | null; view: Record<string, unknown> }[] }).items.find(
      (r) => r.parentRunId === submitted.body.run_id,
    );
    expect(solveRun?.view).toMatchObject({ status: 'succeeded', attempts: 2, provenance: { model: `openai/${FALLBACK}` } });
    const childLog = await stepLog(solveRun?.runId ?? '');
    expect(childLog.filter((l) => l.step === 'retry_scheduled')).toEqual([
      { step: 'retry_scheduled', payload: expect.objectContaining({ step: 'generate', failed_try: 1, reason: 'llm_unavailable' }) },
    ]);
    expect(childLog.filter((l) => l.step === 'model_selected')).toEqual([
      { step: 'model_selected', payload: expect.objectContaining({ attempt: 2, model: `openai/${FALLBACK}`, fallback: true }) },
    ]);
    // The parent waited in GENERATING_SOLUTION through that retry (one child, one solution).
    expect((await stepLog(submitted.body.run_id)).filter((l) => l.step === 'child_started')).toHaveLength(1);
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
