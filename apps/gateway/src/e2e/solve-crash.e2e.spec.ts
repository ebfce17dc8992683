import { join } from 'node:path';
import pg from 'pg';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses, waitFor } from '@openpaw/testing';
import { type LlmWireServer, startOpenAiWireServer, type WireAnswer } from '@openpaw/testkit';
import { GatewayClient } from './e2e-client.js';

const root = join(import.meta.dirname, '../../../..');
const SOLUTION = JSON.stringify({
  can_solve: true,
  reason: null,
  steps: [{ title: 'Subtract 4, then divide by 3', detail: '\\(3x = 27\\), so \\(x = 9\\)' }],
  final_answer: '\\(x = 9\\)',
});

/**
 * The solve service SIGKILLed while it holds an attempt's claim, inside the model call. The dead
 * holder cannot give its claim back and stops renewing it, so the short lease runs out and the
 * command's redelivery (JetStream, after the ack wait) takes the same attempt over: one attempt, two
 * model calls (the first was cut off by the kill), no retry by the coordinator's step timeout (120 s),
 * which is what a 130 s claim used to leave the run waiting for.
 */
describe('solve under kill -9 while it holds a claim', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let model: LlmWireServer;
  let databaseUrl: string;
  let solveCalls = 0;
  /** Never resolves: the first call is answered by nobody (its caller is killed). */
  const never = new Promise<void>(() => undefined);

  beforeAll(async () => {
    nats = await privateNatsServer();
    model = await startOpenAiWireServer(async (request): Promise<WireAnswer> => {
      if (!JSON.stringify(request.body).includes('can_solve')) return { status: 400, message: 'this scripted model only answers solve prompts' };
      solveCalls += 1;
      if (solveCalls === 1) await never;
      return { text: SOLUTION };
    });
    const llm = { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-e2e', OPENPAW_LLM_MAX_ATTEMPTS: '1' };
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: (databaseUrl = await freshDatabase('e2e_solve_crash')),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      serviceEnv: { solve: { ...llm, OPENPAW_SOLVE_MATHS_ENGINE: 'check' }, coordinator: llm },
    });
  }, 240_000);

  afterAll(async () => {
    await platform?.stop();
    await model?.close();
    await nats?.dispose();
  });

  async function solveAttempts(runId: string): Promise<Array<{ attempt: number; status: string }>> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ attempt: number; status: string }>(
        `select a.attempt, a.status from solve.solution_attempts a
           join coordinator.workflow_runs c on c.id = a.run_id
          where c.type = 'solve_workflow' and c.parent_run_id = $1 order by a.attempt`,
        [runId],
      );
      return rows.rows;
    } finally {
      await db.end();
    }
  }

  it('a redelivery takes the dead holder\'s attempt over once its lease runs out: SUCCEEDED, one attempt, the model called twice', async () => {
    const alice = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'alice');
    const submitted = await alice.submitText('Solve for x: 3x + 4 = 31');
    expect(submitted.status).toBe(202);
    const runId = submitted.body.run_id;

    // Solve has claimed the attempt and is inside the model call.
    await waitFor(() => (solveCalls === 1 ? true : undefined), 'the first solve call reaching the model', 90_000);
    expect(await solveAttempts(runId)).toEqual([{ attempt: 1, status: 'in_progress' }]);
    await platform.kill('solve');
    await platform.start('solve');

    // Well inside the coordinator's 120 s step timeout: the redelivery, not a new attempt, must finish it.
    const run = await alice.untilTerminal(runId, 110_000);
    expect(run.state).toBe('SUCCEEDED');
    expect(await solveAttempts(runId)).toEqual([{ attempt: 1, status: 'done' }]);
    expect(solveCalls).toBe(2);
  }, 300_000);
});
