import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import pg from 'pg';
import { cliEnvironment, runCli, startCli } from '../e2e/testing/openpaw-cli.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../e2e/scripted-model-server.js';
import { ArtifactsApiClient } from './testing/artifacts-api-client.js';
import { StudyNotesModel } from './testing/study-notes-model.js';

/**
 * Spec 02 end to end: the gateway, the coordinator and the artifacts service as their own processes
 * from the build, on a real nats-server and PostgreSQL. The artifacts service calls its model through
 * the real OpenAI adapter, against a scripted OpenAI-compatible server (`StudyNotesModel`): it answers
 * from the prompt's chunks, and a test queues faults for the next calls (output that misses the
 * schema, the API unavailable), which is how the retry rules are driven through real services.
 *
 * `OPENPAW_E2E_ROOT` may point at another build of this tree (a directory holding `dist/`), e.g.
 * one whose coordinator registers `artifact_job` before the shared workflow list does.
 */
const root = process.env['OPENPAW_E2E_ROOT'] ?? join(import.meta.dirname, '../../../..');

const PHOTOSYNTHESIS = [
  'Photosynthesis converts light energy into chemical energy stored in glucose.',
  'Chloroplasts are the organelles where photosynthesis happens in plant cells.',
  'Chlorophyll is the green pigment that absorbs red and blue light.',
  'The Calvin cycle uses carbon dioxide to build sugars in the stroma.',
  'Stomata are small pores in leaves that let carbon dioxide enter the plant.',
].join(' ');
const CELLS = [
  'Mitochondria release energy from glucose through cellular respiration.',
  'Ribosomes assemble proteins from amino acids in every living cell.',
  'The nucleus stores genetic information as long molecules of DNA.',
  'Lysosomes digest worn out organelles with powerful enzymes.',
  'The membrane controls which substances enter and leave the cell.',
].join(' ');
/** How long creating a job waits for its snapshot here: short, so a frozen artifacts service is slow, not gone. */
const SNAPSHOT_TIMEOUT_MS = 4_000;
/** One generation whose output misses the schema: the request and the client's re-ask. */
const ONE_GENERATION = 2;

type Job = Record<string, unknown>;
const terminal = (job: Job): boolean => job['status'] === 'completed' || job['status'] === 'failed';

describe('artifact jobs through the gateway (spec 02)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let databaseUrl: string;
  let ada: ArtifactsApiClient;
  let bob: ArtifactsApiClient;
  let modelServer: ScriptedModelServer;
  const model = new StudyNotesModel();

  beforeAll(async () => {
    const workflows = join(root, 'dist/apps/coordinator/src/workflows/index.js');
    if (existsSync(workflows) && !readFileSync(workflows, 'utf8').includes('artifactJobDefinition')) {
      throw new Error(
        `the coordinator in ${root}/dist does not register artifact_job: add artifactJobDefinition() (apps/coordinator/src/workflows/artifact-job) to workflowDefinitions and rebuild, or set OPENPAW_E2E_ROOT to a build that does`,
      );
    }
    nats = await privateNatsServer();
    modelServer = await startScriptedModelServer(model.answer);
    databaseUrl = await freshDatabase('e2e_artifacts');
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl,
      services: ['coordinator', 'artifacts', 'gateway'],
      serviceEnv: {
        coordinator: { OPENPAW_ARTIFACT_JOB_TIMINGS_JSON: JSON.stringify({ retryDelayMs: 2_000, stepBackoff: { baseMs: 500, factor: 2, maxMs: 2_000 } }) },
        gateway: { OPENPAW_GATEWAY_SNAPSHOT_TIMEOUT_MS: String(SNAPSHOT_TIMEOUT_MS) },
        artifacts: { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: modelServer.baseUrl, OPENAI_API_KEY: 'sk-e2e', OPENPAW_LLM_MAX_ATTEMPTS: '1' },
      },
    });
    ada = await ArtifactsApiClient.forUser(platform, 'e2e-ada');
    bob = await ArtifactsApiClient.forUser(platform, 'e2e-bob');
  });

  afterEach(() => model.clearFaults());

  afterAll(async () => {
    await platform?.stop();
    await modelServer?.close();
    await nats?.dispose();
  });

  async function stepLog(runId: string): Promise<{ step: string; message: string | undefined; payload: Record<string, unknown> }[]> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ step_name: string; payload: Record<string, unknown> }>(
        'select step_name, payload from coordinator.workflow_step_logs where workflow_run_id = $1 order by id',
        [runId],
      );
      return rows.rows.map((r) => ({ step: r.step_name, message: r.payload['message'] as string | undefined, payload: r.payload }));
    } finally {
      await db.end();
    }
  }

  it('answers the spec’s three requests: new job, the same job while active (also for concurrent duplicates), a new job after completion', async () => {
    const { chunkIds } = await ada.addText('nb-idem', PHOTOSYNTHESIS);
    const request = { message: 'Create a quiz on photosynthesis', session_id: 'nb-idem', options: { num_questions: 3 } };

    // A slow planning call keeps the job active (in planning) while the duplicates come in.
    model.failNext('plan', 1, 'slow');
    const progress = (jobId: string) => ada.progressEvents(jobId);
    const burst = await Promise.all(Array.from({ length: 8 }, () => ada.chat(request)));
    const jobId = burst[0]?.body['job_id'] as string;
    expect(burst[0]).toEqual({
      status: 202,
      body: { type: 'artifact_job_created', job_id: jobId, status: 'pending', artifact_type: 'quiz', message: `Artifact generation job created. Job ID: ${jobId}`, snapshot: 'captured' },
    });
    expect(new Set(burst.map((r) => r.body['job_id']))).toEqual(new Set([jobId]));

    // The snapshot was captured at creation, so a worker has the job at once: planning (spec: "Request 2 → ... (status: planning)").
    const events = progress(jobId);
    const planning = await ada.waitForJob(jobId, (job) => job['status'] === 'planning');
    expect(planning).toEqual({ job_id: jobId, status: 'planning', progress: 0, artifact_type: 'quiz', created_at: expect.any(String), updated_at: expect.any(String) });

    // Request 2: a duplicate while active is the same job, as it is.
    const duplicate = await ada.chat(request);
    expect(duplicate).toEqual({
      status: 202,
      body: { type: 'artifact_job_created', job_id: jobId, status: 'planning', artifact_type: 'quiz', message: `Artifact generation job already in progress. Job ID: ${jobId}` },
    });
    const { body: runs } = await ada.call('GET', '/runs?type=artifact_job&limit=100&view=full');
    const fingerprint = (await ada.view(jobId))['fingerprint'];
    expect((runs['items'] as { view: Record<string, unknown> }[]).filter((r) => r.view['fingerprint'] === fingerprint)).toHaveLength(1);

    // The plan arrives: the job runs through its phases, visible as SSE progress.
    const seen = await events;
    expect(seen[0]).toEqual({ status: 'planning', progress: 0 });
    expect(seen.at(-1)).toEqual({ status: 'completed', progress: 100 });
    const values = seen.map((e) => e.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    for (const [status, value] of [['planning', 0], ['generating', 20], ['validating', 60]] as const) expect(seen).toContainEqual({ status, progress: value });

    const completed = await ada.waitForJob(jobId, terminal);
    expect(Object.keys(completed)).toEqual(['job_id', 'status', 'progress', 'artifact_type', 'result', 'created_at', 'updated_at']);
    expect(completed).toMatchObject({ job_id: jobId, status: 'completed', progress: 100, artifact_type: 'quiz' });
    const questions = (completed['result'] as { questions: { question: string; options: string[]; correct_answer: string; explanation: string; chunk_ids: string[] }[] }).questions;
    expect(questions).toHaveLength(3);
    for (const q of questions) {
      expect(Object.keys(q)).toEqual(['question', 'options', 'correct_answer', 'explanation', 'chunk_ids']);
      expect(new Set(q.options).size).toBe(4);
      expect(q.options).toContain(q.correct_answer);
      expect(q.chunk_ids.every((id) => chunkIds.includes(id))).toBe(true);
    }

    // The spec's lifecycle trace is in the step log.
    const messages = (await stepLog(jobId)).map((l) => l.message).filter((m) => m !== undefined);
    expect(messages).toEqual(
      expect.arrayContaining([
        'Intent classified: artifact (quiz)',
        `Fingerprint: ${String(fingerprint).slice(0, 14)}...`,
        `✓ Created job: ${jobId}`,
        '→ Status: pending (0%)',
        `Worker fetched job: ${jobId}`,
        '→ Status: planning (0%)',
        'Phase 1: Planning quiz structure...',
        '→ Loaded 1 chunk from snapshot',
        '→ LLM planning call complete',
        '→ Status: planning (20%)',
        '→ Status: generating (20%)',
        '✓ Generated artifact: 3 questions',
        '→ Status: generating (60%)',
        '→ Status: validating (60%)',
        '→ Checking structure (90%)',
        '✓ Validation passed',
        '→ Status: completed (100%)',
        `✅ Job ${jobId} completed successfully`,
      ]),
    );

    // Request 3: after completion, a new job.
    const again = await ada.chat(request);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ type: 'artifact_job_created', status: 'pending', artifact_type: 'quiz' });
    expect(again.body['job_id']).not.toBe(jobId);
    expect(await ada.waitForJob(again.body['job_id'] as string, terminal)).toMatchObject({ status: 'completed' });
    expect(await ada.view(again.body['job_id'] as string)).toMatchObject({ fingerprint, sequence: 2 });

    // A client's retry with its Idempotency-Key after the job ended (a 503 whose StartRun did land) is that
    // job, not the next one (issue 27); the key sent with another request is refused, naming its job.
    const keyed = await ada.chat(request, 'ada-quiz-1');
    const keyedJob = keyed.body['job_id'] as string;
    expect(keyed).toMatchObject({ status: 202, body: { status: 'pending', snapshot: 'captured' } });
    await ada.waitForJob(keyedJob, terminal);
    expect(await ada.chat(request, 'ada-quiz-1')).toEqual({
      status: 202,
      body: { type: 'artifact_job_created', job_id: keyedJob, status: 'completed', artifact_type: 'quiz', message: `Artifact generation job already ended (completed). Job ID: ${keyedJob}` },
    });
    const reused = await ada.chat({ ...request, options: { num_questions: 4 } }, 'ada-quiz-1');
    expect(reused).toMatchObject({ status: 422, body: { error: 'idempotency_key_reused', message: expect.stringContaining(keyedJob) as unknown } });
    expect((await ada.chat(request, ' ')).status).toBe(400);
    expect(await ada.view(keyedJob)).toMatchObject({ fingerprint, sequence: 3 });
    const { body: all } = await ada.call('GET', '/runs?type=artifact_job&limit=100&view=full');
    expect((all['items'] as { view: Record<string, unknown> }[]).filter((r) => r.view['fingerprint'] === fingerprint)).toHaveLength(3);

    // Another user's job is not there for them.
    expect((await bob.call('GET', `/ai/artifact/${jobId}`)).status).toBe(404);
  });

  it('retries a job whose generated output misses the schema once, from pending with the same plan and snapshot, and completes it (the spec’s retry example)', async () => {
    await ada.addText('nb-retry', PHOTOSYNTHESIS);
    model.failNext('generate', ONE_GENERATION, 'missing_field');
    const created = await ada.chat({ message: 'Create a quiz on photosynthesis', session_id: 'nb-retry', options: { num_questions: 3 } });
    const jobId = created.body['job_id'] as string;
    expect(created.body).toMatchObject({ type: 'artifact_job_created', artifact_type: 'quiz' });

    const completed = await ada.waitForJob(jobId, terminal);
    expect(completed).toMatchObject({ status: 'completed', progress: 100, result: { questions: expect.any(Array) } });
    const view = await ada.view(jobId);
    expect(view).toMatchObject({ retries: 1, plan_computations: 1, validation_error: null });

    const log = await stepLog(jobId);
    const messages = log.map((l) => l.message);
    const failedAt = messages.indexOf("✗ Validation failed: Missing 'questions' field");
    expect(failedAt).toBeGreaterThan(0);
    expect(messages.slice(failedAt, failedAt + 3)).toEqual(["✗ Validation failed: Missing 'questions' field", '→ Retry 1/1 queued', '→ Status: pending (0%)']);
    expect(messages.slice(failedAt)).toEqual(
      expect.arrayContaining([`Worker fetched job: ${jobId} (retry 1)`, '→ Stored plan loaded from the job (not recomputed)', '✓ Validation passed']),
    );
    // The retry told the model what was wrong.
    const generations = modelServer.requests.filter((r) => JSON.stringify(r.response_format ?? {}).includes('"questions"'));
    expect(generations.at(-1)?.messages.some((m) => m.content.includes("rejected by validation: Missing 'questions' field"))).toBe(true);
    // The plan was computed by the LLM once; the retry generated from the stored plan and the same snapshot.
    expect(log.filter((l) => l.step === 'llm_call_complete' && l.payload['phase'] === 'planning')).toHaveLength(1);
    const plans = log.filter((l) => l.step === 'plan_created').map((l) => l.payload['concepts']);
    expect(plans).toHaveLength(2);
    expect(plans[1]).toEqual(plans[0]);
    expect(log.filter((l) => l.step === 'snapshot_captured')).toHaveLength(1);
  });

  it('fails a job permanently, with the validator’s error, when the retry fails validation too', async () => {
    await ada.addText('nb-fail', CELLS);
    model.failNext('generate', 2 * ONE_GENERATION, 'missing_field');
    const created = await ada.chat({ message: 'Summarize my notes', session_id: 'nb-fail' });
    const jobId = created.body['job_id'] as string;
    const failed = await ada.waitForJob(jobId, terminal);
    expect(Object.keys(failed)).toEqual(['job_id', 'status', 'progress', 'artifact_type', 'error', 'created_at', 'updated_at']);
    expect(failed).toMatchObject({
      job_id: jobId,
      status: 'failed',
      artifact_type: 'summary',
      error: "validation failed after 1 retry: Missing 'summary' or 'key_points' field",
    });
    expect(await ada.view(jobId)).toMatchObject({ retries: 1, result: null });
  });

  it('keeps a job on its snapshot: a source changed after creation does not change the artifact; the next job sees the change', async () => {
    // A generation that misses the schema holds the job in pending (retry queued) for 2 s after its snapshot was taken.
    const v1 = await ada.addText('nb-snap', PHOTOSYNTHESIS);
    model.failNext('generate', ONE_GENERATION, 'missing_field');
    const request = { message: 'Create a quiz on these notes', session_id: 'nb-snap', source_ids: [v1.sourceId], options: { num_questions: 2 } };
    const jobId = (await ada.chat(request)).body['job_id'] as string;
    const answeredAt = Date.now();
    await ada.waitForJob(jobId, (job) => job['status'] === 'pending' && job['progress'] === 0 && job['updated_at'] !== job['created_at']);
    // Captured at creation: before the request was answered.
    expect(Date.parse(((await ada.view(jobId))['snapshot'] as { captured_at: string }).captured_at)).toBeLessThanOrEqual(answeredAt);
    expect(await ada.view(jobId)).toMatchObject({ retries: 1, snapshot: { chunk_ids: v1.chunkIds } });

    // The source changes while the job waits for its retry.
    const { status, body } = await ada.call('PUT', `/notebooks/nb-snap/sources/${v1.sourceId}`, { text: CELLS });
    expect(status).toBe(201);
    const v2Chunks = body['chunk_ids'] as string[];
    expect(v2Chunks.some((id) => v1.chunkIds.includes(id))).toBe(false);

    const done = await ada.waitForJob(jobId, terminal);
    expect(done['status']).toBe('completed');
    const text = JSON.stringify(done['result']);
    const cited = (done['result'] as { questions: { chunk_ids: string[] }[] }).questions.flatMap((q) => q.chunk_ids);
    expect(cited.every((id) => v1.chunkIds.includes(id))).toBe(true);
    expect(text).toMatch(/photosynthesis|chlorophyll|chloroplasts/i);
    expect(text).not.toMatch(/mitochondria|ribosomes|lysosomes/i);

    // After completion the same request is a new job, with a new snapshot: the changed source.
    const next = (await ada.chat(request)).body['job_id'] as string;
    expect(next).not.toBe(jobId);
    const nextDone = await ada.waitForJob(next, terminal);
    expect(nextDone['status']).toBe('completed');
    expect(await ada.view(next)).toMatchObject({ snapshot: { chunk_ids: v2Chunks }, retries: 0 });
    expect(JSON.stringify(nextDone['result'])).toMatch(/mitochondria|ribosomes|lysosomes|nucleus|membrane/i);
  });

  it('retries planning with backoff while the model is unavailable, then completes the job', async () => {
    await ada.addText('nb-outage', CELLS);
    model.failNext('plan', 2, 'unavailable');
    const jobId = (await ada.chat({ message: 'Make flashcards about cells', session_id: 'nb-outage', options: { num_cards: 2 } })).body['job_id'] as string;
    expect(await ada.waitForJob(jobId, terminal)).toMatchObject({ status: 'completed', result: { flashcards: expect.any(Array) } });
    const log = await stepLog(jobId);
    expect(log.filter((l) => l.step === 'retry_scheduled').map((l) => [l.payload['step'], l.payload['failed_try'], l.payload['backoff_ms']])).toEqual([
      ['plan', 1, 500],
      ['plan', 2, 1_000],
    ]);
    expect(log.filter((l) => l.step === 'llm_call_complete' && l.payload['phase'] === 'planning')).toHaveLength(1);
    expect(await ada.view(jobId)).toMatchObject({ retries: 0, plan_computations: 1 });
  });

  it('refuses a job over unknown source ids at once (404), starting nothing', async () => {
    await ada.addText('nb-unknown', CELLS);
    const before = ((await ada.call('GET', '/runs?type=artifact_job&limit=100&view=full')).body['items'] as unknown[]).length;
    const refused = await ada.chat({ message: 'Create a quiz on these notes', session_id: 'nb-unknown', source_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(refused).toMatchObject({ status: 404, body: { error: 'unknown_sources', message: expect.stringContaining('00000000-0000-4000-8000-000000000000') } });
    expect(((await ada.call('GET', '/runs?type=artifact_job&limit=100&view=full')).body['items'] as unknown[]).length).toBe(before);
  });

  it('accepts a job (202, Location) when the artifacts service is too slow to capture its snapshot; the job captures it itself and completes, from the API and the CLI', async () => {
    const { sourceId } = await ada.addText('nb-slow', PHOTOSYNTHESIS);
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-ada');
    platform.freeze('artifacts');
    try {
      const asked = Date.now();
      const cli = startCli(root, ['notebook', 'quiz', 'nb-slow', '--count', '3', '--sources', sourceId], env);
      const [created] = await Promise.all([
        ada.exchange('POST', '/ai/chat', { message: 'Create a quiz on photosynthesis', session_id: 'nb-slow', options: { num_questions: 2 } }),
        cli.line(/the artifacts service was slow/, 30_000),
      ]);
      const answered = Date.now();
      expect(answered - asked).toBeGreaterThanOrEqual(SNAPSHOT_TIMEOUT_MS - 100);
      const jobId = created.body['job_id'] as string;
      expect(created).toEqual({
        status: 202,
        location: `/ai/artifact/${jobId}`,
        body: {
          type: 'artifact_job_created',
          job_id: jobId,
          status: 'pending',
          artifact_type: 'quiz',
          snapshot: 'deferred',
          message: `Artifact generation job created; the artifacts service was slow, so the job captures its sources' snapshot as its first step. Job ID: ${jobId}`,
        },
      });
      // Durably accepted: the job is there to read while the artifacts service is still frozen.
      expect(await ada.waitForJob(jobId, (job) => job['status'] === 'pending')).toMatchObject({ job_id: jobId, progress: 0 });
      platform.thaw('artifacts');
      expect(await ada.waitForJob(jobId, terminal, 60_000)).toMatchObject({ status: 'completed', progress: 100, result: { questions: expect.any(Array) } });
      const log = await stepLog(jobId);
      expect(log.filter((l) => l.step === 'snapshot_captured')).toHaveLength(1);
      expect(await ada.view(jobId)).toMatchObject({ snapshot: { source_ids: [sourceId] } });
      // Captured after the thaw, yet as of the request (spec 02: at creation), not of the capture.
      const capturedAt = Date.parse(((await ada.view(jobId))['snapshot'] as { captured_at: string }).captured_at);
      expect(capturedAt).toBeGreaterThanOrEqual(asked);
      expect(capturedAt).toBeLessThanOrEqual(answered);

      const finished = await cli.exited;
      expect({ code: finished.code, stderr: finished.stderr }).toEqual({ code: 0, stderr: '' });
      expect(finished.stdout).toMatch(/^quiz job [0-9a-f-]{36} \(pending\)\n {2}the artifacts service was slow/m);
      expect(finished.stdout).toMatch(/^3\. /m);
    } finally {
      platform.thaw('artifacts');
    }
  });

  it('answers other messages with a grounded chat answer from the artifacts service', async () => {
    const cells = await ada.addText('nb-chat', CELLS);
    const answer = await ada.chat({ message: 'What do ribosomes do in the cell?', session_id: 'nb-chat' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ type: 'chat_response', session_id: 'nb-chat', model: 'openai/gpt-4o-mini' });
    expect(answer.body['message']).toEqual(expect.stringContaining('Ribosomes assemble proteins'));
    expect(answer.body['citations']).toEqual(cells.chunkIds.map((id) => ({ chunk_id: id, source_id: cells.sourceId })));

    const unknown = await ada.chat({ message: 'What is in this source?', session_id: 'nb-chat', source_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown).toMatchObject({ status: 422, body: { error: 'unknown_sources' } });
  });

  it('the CLI (`openpaw notebook`) adds a file source, follows a quiz job\'s progress live to the printed quiz, and chats', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openpaw-notebook-cli-'));
    const notes = join(dir, 'photosynthesis.txt');
    await writeFile(notes, PHOTOSYNTHESIS);
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-cli');
    const openpaw = (...args: string[]) => runCli(root, ['notebook', ...args], env);
    try {
      const added = await openpaw('add', 'nb-cli', notes, '--json');
      expect(added).toMatchObject({ code: 0 });
      const source = (JSON.parse(added.stdout) as { result: { source_id: string; status: string } }).result;
      expect(source.status).toBe('indexed');

      const quiz = await openpaw('quiz', 'nb-cli', '--count', '2', '--sources', source.source_id);
      expect({ code: quiz.code, stderr: quiz.stderr }).toEqual({ code: 0, stderr: '' });
      expect(quiz.stdout).toMatch(/^quiz job [0-9a-f-]{36} \(pending\)$/m);
      // The job's progress, from its run events, in order, ending at 100.
      const progress = [...quiz.stdout.matchAll(/^ {2}(\w+) +(\d+)%$/gm)].map((m) => Number(m[2]));
      expect(progress.at(-1)).toBe(100);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(quiz.stdout).toMatch(/^1\. .+\n {3}a\) .+$/m);
      expect(quiz.stdout).toMatch(/^2\. /m);
      expect(quiz.stdout).toMatch(/^ {3}answer: /m);

      const chat = await openpaw('chat', 'nb-cli', 'Where are chloroplasts found?');
      expect(chat).toMatchObject({ code: 0, stdout: expect.stringContaining('Chloroplasts are the organelles') });
      expect(chat.stdout).toContain(`sources: ${source.source_id}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI (`openpaw notebook flashcards`, `summary`) follows each job live to its printed cards and summary, with the count asked for', async () => {
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-cli-study');
    const openpaw = (...args: string[]) => runCli(root, ['notebook', ...args], env);
    const added = await openpaw('add', 'nb-cli-study', PHOTOSYNTHESIS, '--json');
    expect(added).toMatchObject({ code: 0 });
    const sourceId = (JSON.parse(added.stdout) as { result: { source_id: string } }).result.source_id;
    const sentences = PHOTOSYNTHESIS.split(/(?<=\.) /);
    /** The job line, then its progress from the run events in order up to 100, then the artifact as printed. */
    const followed = (kind: string, stdout: string): string[] => {
      expect(stdout).toMatch(new RegExp(`^${kind} job [0-9a-f-]{36} \\(pending\\)$`, 'm'));
      const progress = [...stdout.matchAll(/^ {2}(\w+) +(\d+)%$/gm)].map((m) => Number(m[2]));
      expect(progress.at(-1)).toBe(100);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      return stdout.slice(stdout.lastIndexOf('100%\n') + 5).split('\n');
    };

    // `--count` is the flashcards' own count (num_cards; the default is 10).
    const flashcards = await openpaw('flashcards', 'nb-cli-study', '--count', '3', '--sources', sourceId);
    expect({ code: flashcards.code, stderr: flashcards.stderr }).toEqual({ code: 0, stderr: '' });
    const cards = followed('flashcards', flashcards.stdout).filter((line) => /^\d+\. /.test(line));
    expect(cards).toEqual(['1. Point 1', '2. Point 2', '3. Point 3']);
    // Each card's back, under its front, is a sentence of the source.
    const backs = [...flashcards.stdout.matchAll(/^\d+\. Point \d+\n {3}(.+)$/gm)].map((m) => m[1]);
    expect(backs).toHaveLength(3);
    for (const back of backs) expect(sentences).toContain(back);

    // `--count` is the summary's number of key points (num_points; the default is 5).
    const summary = await openpaw('summary', 'nb-cli-study', '--count', '2');
    expect({ code: summary.code, stderr: summary.stderr }).toEqual({ code: 0, stderr: '' });
    const printed = followed('summary', summary.stdout);
    expect(printed[1]).toBe('Study notes');
    const points = printed.filter((line) => line.startsWith('  • ')).map((line) => line.slice(4));
    expect(points).toHaveLength(2);
    for (const point of points) expect(sentences).toContain(point);
    expect(printed.some((line) => line.startsWith(`${sentences[0]} `))).toBe(true);
  });

  it('takes sources as text, files (PDF) and URLs, and refuses bad input with the field named', async () => {
    const form = new FormData();
    const pdf = [
      '%PDF-1.4',
      '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
      '3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> endobj',
      '4 0 obj << /Length 90 >>',
      'stream',
      'BT /F1 12 Tf 72 720 Td (Enzymes speed up chemical reactions in living things.) Tj ET',
      'endstream',
      'endobj',
      'trailer << /Root 1 0 R >>',
      '%%EOF',
    ].join('\n');
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'enzymes.pdf');
    const uploaded = await ada.call('POST', '/notebooks/nb-files/sources', form);
    expect(uploaded).toMatchObject({ status: 201, body: { status: 'indexed', kind: 'file', title: 'Enzymes speed up chemical reactions in living things.' } });
    // The same content again is the same source, with the same chunk ids.
    const again = await ada.call('POST', '/notebooks/nb-files/sources', (() => {
      const f = new FormData();
      f.append('file', new Blob([pdf], { type: 'application/pdf' }), 'enzymes.pdf');
      return f;
    })());
    expect(again.body).toMatchObject({ source_id: uploaded.body['source_id'], chunk_ids: uploaded.body['chunk_ids'] });

    const blank = await ada.call('POST', '/notebooks/nb-files/sources', { text: '' });
    expect(blank).toMatchObject({ status: 400, body: { error: 'validation_failed', issues: [{ path: 'text' }] } });
    const unreachable = await ada.call('POST', '/notebooks/nb-files/sources', { url: 'http://127.0.0.1:9/nothing' });
    expect(unreachable).toMatchObject({ status: 422, body: { error: 'source_rejected', reason: 'fetch_failed' } });
    const badChat = await ada.chat({ message: 'Create a quiz', session_id: 'nb files!' });
    expect(badChat).toMatchObject({ status: 400, body: { error: 'validation_failed', issues: [{ path: 'session_id' }] } });
    const badOptions = await ada.chat({ message: 'Create a quiz', session_id: 'nb-files', options: { num_questions: 500 } });
    expect(badOptions).toMatchObject({ status: 400, body: { issues: [{ path: 'options.num_questions' }] } });

    const openapi = (await (await fetch(`${platform.gatewayUrl}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/ai/chat', '/ai/artifact/{id}', '/notebooks/{notebookId}/sources', '/notebooks/{notebookId}/sources/{sourceId}']),
    );
  });
});
