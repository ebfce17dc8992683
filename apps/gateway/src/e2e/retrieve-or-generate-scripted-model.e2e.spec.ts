import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import pg from 'pg';
import { GatewayClient } from './e2e-client.js';
import { type ChatCompletionRequest, type ScriptedModelServer, type ScriptedReply, schemaFields, startScriptedModelServer } from './scripted-model-server.js';

const root = join(import.meta.dirname, '../../../..');

/** How the scripted tutor answers solve prompts right now. */
type TutorMode = 'solves' | 'unavailable' | 'cannot_solve' | 'slow';

/** A tutor model behind the OpenAI adapter: a worked solution, a 503 outage, a refusal, or a reply that takes a minute. */
function tutor(mode: () => TutorMode): (request: ChatCompletionRequest) => ScriptedReply {
  return (request) => {
    if (!schemaFields(request).includes('can_solve')) return { status: 400, message: 'this scripted model only answers solve prompts' };
    switch (mode()) {
      case 'solves':
        return {
          content: JSON.stringify({
            can_solve: true,
            reason: null,
            steps: [{ title: 'Divide the distance by the time', detail: '\\(120 \\div 2 = 60\\)' }],
            final_answer: '\\(60\\) km/h',
          }),
        };
      case 'unavailable':
        return { status: 503, message: 'The server is overloaded' };
      case 'cannot_solve':
        return { content: JSON.stringify({ can_solve: false, reason: 'the problem is ambiguous', steps: [], final_answer: null }) };
      case 'slow':
        return { content: JSON.stringify({ can_solve: false, reason: 'too late', steps: [], final_answer: null }), delayMs: 60_000 };
    }
  };
}

// The embedding of the paraphrase is close to the original (cosine ≈ 0.81 with the local embedder),
// under the hybrid bar (0.85 − 0.02) and over the near-miss bar (0.70); same numbers, so not refused.
const ORIGINAL = 'A train travels 120 km in 2 hours. What is its average speed in km/h?';
const PARAPHRASE = 'The train travels 120 km in 2 hours. What is the average speed of the train in km/h?';
// Cosine ≈ 0.89: a vector hit at the standard threshold (0.85), a miss at the sensitive one (0.95).
const CLOSE_PARAPHRASE = 'A train covers 120 km in 2 hours. What is its average speed in km/h?';

describe('RetrieveOrGenerate through the gateway with a scripted model: near-miss, cancel, sensitive content', () => {
  let nats: NatsServerHandle;
  let databaseUrl: string;
  let platform: RunningPlatform;
  let model: ScriptedModelServer;
  let mode: TutorMode = 'solves';

  beforeAll(async () => {
    nats = await privateNatsServer();
    model = await startScriptedModelServer(tutor(() => mode));
    const llm = { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-e2e', OPENPAW_LLM_MAX_ATTEMPTS: '1' };
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: (databaseUrl = await freshDatabase('e2e_rog_scripted_model')),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      serviceEnv: {
        solve: { ...llm, OPENPAW_SOLVE_MATHS_ENGINE: 'check' },
        coordinator: { ...llm, OPENPAW_WORKFLOW_TIMINGS_JSON: JSON.stringify({ generate: { backoff: { baseMs: 200, factor: 2, maxMs: 1_000 } } }) },
      },
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await model?.close();
    await nats?.dispose();
  });

  /** The `policy_applied` rows of a run's step log, in order. */
  async function policiesApplied(runId: string): Promise<Record<string, unknown>[]> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ payload: Record<string, unknown> }>(
        "select payload from coordinator.workflow_step_logs where workflow_run_id = $1 and step_name = 'policy_applied' order by id",
        [runId],
      );
      return rows.rows.map((r) => r.payload);
    } finally {
      await db.end();
    }
  }

  const solveRuns = async (client: GatewayClient) =>
    ((await (await client.request('/runs?type=solve_workflow&limit=100&view=full')).json()) as { items: { runId: string; state: string; view: Record<string, unknown> }[] }).items;

  it('serves the closest solution as approximate only after the solve failed all its retries; not after the model said it cannot solve it', async () => {
    const alice = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'alice');
    const solved = await alice.submitText(ORIGINAL, 60);
    expect(solved.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
    const original = (solved.body.result as { output: { asset_version_id: string } }).output.asset_version_id;

    // The model is down: every solve attempt fails retryably until retry_max is spent.
    mode = 'unavailable';
    const before = model.requests.length;
    const near = await alice.submitText(PARAPHRASE, 60);
    expect(near.body.result).toMatchObject({ status: 'succeeded', outcome: 'hit', output: { asset_version_id: original, is_approximate: true, video_pending: false } });
    expect(model.requests.length - before).toBe(4);
    expect((await solveRuns(alice)).find((r) => r.state === 'FAILED')?.view).toMatchObject({ error_code: 'llm_unavailable', attempts: 4, retries_exhausted: true });

    // The model answers that it cannot solve it: not retryable, so no near-miss.
    mode = 'cannot_solve';
    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    const refused = await bob.submitText(PARAPHRASE, 60);
    expect(refused.body.result).toMatchObject({ status: 'failed', error_code: 'cannot_solve' });
    expect(refused.body.result?.output).toEqual({});
  });

  it('cancels the solve child run when its parent is cancelled in GENERATING_SOLUTION', async () => {
    mode = 'slow';
    const carol = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'carol');
    const submitted = await carol.submitText('A tank holds 500 litres and drains 25 litres a minute. How long until it is empty?');
    await carol.untilState(submitted.body.run_id, ['GENERATING_SOLUTION']);
    const cancel = await carol.request(`/runs/${submitted.body.run_id}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(cancel.status).toBe(202);
    expect((await carol.untilTerminal(submitted.body.run_id)).state).toBe('CANCELLED');
    const deadline = Date.now() + 15_000;
    let child = (await solveRuns(carol))[0];
    while (child?.state !== 'CANCELLED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      child = (await solveRuns(carol))[0];
    }
    expect(child).toMatchObject({ state: 'CANCELLED' });
  });

  it('tags an exam paper sensitive while ingesting and applies the sensitive policy: no video', async () => {
    mode = 'solves';
    const erin = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'erin');
    const standard = await erin.submitText('A cyclist rides 180 km in 3 hours. What is her average speed in km/h?', 60);
    expect(standard.body.result).toMatchObject({ status: 'succeeded', outcome: 'new', output: { video_pending: true } });

    const exam = await erin.submitText('Candidate number 4821. Time allowed: 1 hour. A car drives 240 km in 4 hours. What is its average speed in km/h?', 60);
    expect(exam.body.result).toMatchObject({ status: 'succeeded', outcome: 'new', output: { video_pending: false } });
    const policies = await policiesApplied(exam.body.run_id);
    expect(policies.map((p) => p['content_sensitivity'])).toEqual(['standard', 'sensitive']);
    expect(policies[1]).toMatchObject({ sensitivity_reasons: ['exam_paper'], policy: { retrieval_threshold: 0.95, video_generation: 'skip' } });
  });

  it('lets a client mark its submission sensitive: a paraphrase that is a hit for standard content is solved anew at 0.95', async () => {
    mode = 'solves';
    const frank = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'frank');
    const standard = await frank.submitText(CLOSE_PARAPHRASE, 60);
    expect(standard.body.result).toMatchObject({ status: 'succeeded', outcome: 'hit', output: { is_approximate: false } });

    const grace = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'grace');
    const response = await grace.request('/problems?wait=60', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: CLOSE_PARAPHRASE, content_sensitivity: 'sensitive' }),
    });
    const sensitive = (await response.json()) as { run_id: string; result?: Record<string, unknown> };
    expect(sensitive.result).toMatchObject({ status: 'succeeded', outcome: 'new', output: { video_pending: false } });
    expect((await policiesApplied(sensitive.run_id)).map((p) => p['content_sensitivity'])).toEqual(['sensitive']);
  });
});
