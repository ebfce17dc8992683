import {
  ArtifactGenerated,
  ArtifactJobProgress,
  type ArtifactJobInput,
  ArtifactPlanned,
  type ArtifactPlan,
  ArtifactStepFailed,
  ArtifactValidated,
  CaptureSnapshot,
  GenerateArtifact,
  InputRefused,
  type MessageData,
  PlanArtifact,
  type RetrievalSnapshot,
  SnapshotCaptured,
  ValidateArtifact,
} from '@openpaw/contracts';
import {
  commandIdFor,
  replayRun,
  retryTimerName,
  type SagaInput,
  type SagaScenario,
  scenario,
  type ScenarioStep,
  stepTimeoutInputName,
  type StepLogRecord,
  tryKey,
  validateDefinition,
} from '@openpaw/saga';
import { ARTIFACT_JOB_TRANSITIONS, type ArtifactJobData } from './artifact-job.data.js';
import { artifactJobDefinition } from './artifact-job.definition.js';
import { DEFAULT_ARTIFACT_JOB_TIMINGS } from './artifact-job.timings.js';

const definition = artifactJobDefinition({ ...DEFAULT_ARTIFACT_JOB_TIMINGS, retryDelayMs: 500 });

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';

const input: ArtifactJobInput = {
  notebook_id: 'session123',
  artifact_type: 'quiz',
  content: 'Create a quiz on photosynthesis',
  source_ids: [S1, S2],
  options: { num_questions: 2, difficulty: 'medium' },
  fingerprint: 'a7f9b2c3d4e5f6'.padEnd(64, '0'),
  sequence: 1,
  intent: { router: 'rules', reason: 'matched "quiz"' },
};

const snapshot: RetrievalSnapshot = {
  chunks: [
    { chunk_id: 'chk_a', source_id: S1, text: 'Photosynthesis turns light into chemical energy.' },
    { chunk_id: 'chk_b', source_id: S2, text: 'Chloroplasts contain chlorophyll, which absorbs light.' },
  ],
  source_ids: [S1, S2],
  embedding_version: 'local/hashed-ngrams-384:chunker-v1',
  captured_at: '2026-01-01T00:00:00.000Z',
};

const plan: ArtifactPlan = { title: 'Photosynthesis', concepts: ['photosynthesis', 'chloroplast'], created_at: '2026-01-01T00:00:01.000Z', model: 'local/deterministic' };

const quiz: MessageData<typeof ArtifactGenerated>['result'] = {
  questions: [
    { question: 'Q1?', options: ['a', 'b', 'c', 'd'], correct_answer: 'a', explanation: 'because', chunk_ids: ['chk_a'] },
    { question: 'Q2?', options: ['e', 'f', 'g', 'h'], correct_answer: 'f', explanation: 'because', chunk_ids: ['chk_b'] },
  ],
};

/** The id of the one command `step` sent (what a service's reply carries as `commandId`). */
function commandOf(step: ScenarioStep): string {
  const sent = step.messages();
  expect(sent).toHaveLength(1);
  return sent[0]!.envelope.id;
}

/** The engine's input when the try `tryNo` of `step` (e.g. `plan:1`) times out. */
function timeoutOf(step: string, tryNo: number): SagaInput {
  return { kind: 'timer', name: stepTimeoutInputName(tryKey(step, tryNo)), payload: {} };
}

/** The backoff timer `step` set, as it fires. */
function backoffTimerSetBy(step: ScenarioStep, stepName: string): Extract<SagaInput, { kind: 'timer' }> {
  const timer = step.applied.timers.find((t) => t.op === 'set' && t.name === retryTimerName(stepName));
  if (timer?.op !== 'set') throw new Error(`no backoff timer for ${stepName} was set`);
  return { kind: 'timer', name: timer.name, payload: timer.payload };
}

function data(step: ScenarioStep): ArtifactJobData {
  return step.data as ArtifactJobData;
}

class Job {
  readonly s: SagaScenario = scenario(definition, '00000000-0000-4000-8000-0000000000a1');
  readonly steps: ScenarioStep[] = [];
  last!: ScenarioStep;

  record(step: ScenarioStep): ScenarioStep {
    this.steps.push(step);
    this.last = step;
    return step;
  }

  started(): ScenarioStep {
    return this.record(this.s.givenStarted(input));
  }

  captured(value: RetrievalSnapshot | null = snapshot): ScenarioStep {
    return this.record(this.s.when(this.s.event(SnapshotCaptured, { runId: this.s.runId, commandId: commandOf(this.last), snapshot: value })));
  }

  planned(reused = false, value: ArtifactPlan = plan): ScenarioStep {
    return this.record(this.s.when(this.s.event(ArtifactPlanned, { runId: this.s.runId, commandId: commandOf(this.last), plan: value, reused, chunksLoaded: 2 })));
  }

  generated(generation = 1): ScenarioStep {
    return this.record(
      this.s.when(this.s.event(ArtifactGenerated, { runId: this.s.runId, commandId: commandOf(this.last), generation, result: quiz, itemCount: 2, model: 'local/deterministic' })),
    );
  }

  progress(commandId: string, progress = 90): ScenarioStep {
    return this.record(
      this.s.when(this.s.event(ArtifactJobProgress, { runId: this.s.runId, commandId, phase: 'validating', progress, detail: 'Checking structure' })),
    );
  }

  validated(commandId: string, valid: boolean, error: string | null = null, generation = 1): ScenarioStep {
    return this.record(
      this.s.when(this.s.event(ArtifactValidated, { runId: this.s.runId, commandId, generation, valid, error, errors: error === null ? [] : [error] })),
    );
  }

  retryFires(): ScenarioStep {
    return this.record(this.s.advance(500).when({ kind: 'timer', name: 'retry', payload: {} }));
  }

  /** Runs through to validating and returns the ValidateArtifact command's id. */
  toValidating(): string {
    this.started();
    this.captured();
    this.planned();
    return commandOf(this.generated());
  }

  logs(): StepLogRecord[] {
    return this.steps.flatMap((step) => [...step.applied.logs]);
  }

  messages(): string[] {
    return this.logs()
      .map((log) => (log.payload as { message?: string }).message)
      .filter((m): m is string => m !== undefined);
  }
}

describe('artifact_job saga (spec 02)', () => {
  it('has the spec states and a transition table as data', () => {
    expect(() => validateDefinition(definition)).not.toThrow();
    expect(definition.states).toEqual(['pending', 'planning', 'generating', 'validating', 'completed', 'failed']);
    expect(definition.transitions).toEqual({
      pending: ['planning', 'failed'],
      planning: ['generating', 'failed'],
      generating: ['validating', 'pending', 'failed'],
      validating: ['completed', 'pending', 'failed'],
    });
    // The table the rows declare is the spec's, as the data module states it.
    expect(definition.transitions).toEqual(ARTIFACT_JOB_TRANSITIONS);
    expect(definition.terminal).toEqual(['completed', 'failed']);
  });

  describe('given a new job request', () => {
    it('when started, then it is pending at 0% and the artifacts service captures the snapshot', () => {
      const job = new Job();
      const step = job.started();
      expect(step.state).toBe('pending');
      expect(step.view()).toMatchObject({ status: 'pending', progress: 0, artifact_type: 'quiz', snapshot: null, plan: null, result: null });
      expect(step.sent(CaptureSnapshot)).toEqual([
        { runId: job.s.runId, userId: 'user-1', notebookId: 'session123', sourceIds: [S1, S2], query: 'Create a quiz on photosynthesis', k: 5 },
      ]);
      expect(step.messages()[0]?.envelope.id).toBe(commandIdFor(job.s.runId, 1, tryKey('snapshot', 1)));
      expect(job.messages()).toEqual([
        'Intent classified: artifact (quiz)',
        'Fingerprint: a7f9b2c3d4e5f6...',
        `✓ Created job: ${job.s.runId}`,
        '→ Status: pending (0%)',
      ]);
    });

    it('when the gateway deferred the snapshot, then the artifacts service captures it as of the request time (spec 02: at creation)', () => {
      const job = new Job();
      const requestedAt = '2026-02-08T10:30:00.000Z';
      const step = job.record(job.s.givenStarted({ ...input, requested_at: requestedAt }));
      expect(step.state).toBe('pending');
      expect(step.sent(CaptureSnapshot)).toEqual([
        { runId: job.s.runId, userId: 'user-1', notebookId: 'session123', sourceIds: [S1, S2], query: 'Create a quiz on photosynthesis', k: 5, asOf: requestedAt },
      ]);
    });

    it('when the gateway captured the snapshot at creation, then it is stored as it is and a worker takes the job: planning with its chunks, no CaptureSnapshot', () => {
      const job = new Job();
      const step = job.record(job.s.givenStarted({ ...input, snapshot }));
      expect(step.state).toBe('planning');
      expect(step.sent(CaptureSnapshot)).toEqual([]);
      expect(step.sent(PlanArtifact)).toEqual([expect.objectContaining({ chunks: snapshot.chunks, storedPlan: null })]);
      expect(step.view()).toMatchObject({ status: 'planning', progress: 0, snapshot: { chunk_ids: ['chk_a', 'chk_b'], captured_at: snapshot.captured_at } });
      expect(job.messages()).toEqual(expect.arrayContaining([`✓ Created job: ${job.s.runId}`, '→ Status: pending (0%)', `Worker fetched job: ${job.s.runId}`]));
      // A late SnapshotCaptured (to the gateway's command) changes nothing.
      expect(job.s.when(job.s.event(SnapshotCaptured, { runId: job.s.runId, commandId: 'gateway-command', snapshot: null })).outcome).toBe('ignored');
    });

    it('when the input is not a valid job request, then the start is refused', () => {
      const step = scenario(definition).givenStarted({ ...input, artifact_type: 'poem' });
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    });
  });

  describe('given a pending job', () => {
    it('when the snapshot is captured, then planning at 0% with the snapshot stored and its chunks sent to the planner', () => {
      const job = new Job();
      job.started();
      const step = job.captured();
      expect(step.state).toBe('planning');
      expect(data(step)).toMatchObject({ stage: 'planning', snapshot, progress: 0 });
      expect(step.view()).toMatchObject({ status: 'planning', progress: 0, snapshot: { chunk_ids: ['chk_a', 'chk_b'], embedding_version: snapshot.embedding_version } });
      expect(step.sent(PlanArtifact)).toEqual([
        { runId: job.s.runId, artifactType: 'quiz', content: input.content, options: input.options, chunks: snapshot.chunks, storedPlan: null },
      ]);
    });

    it('when the notebook had no sources, then the request content is the only chunk (spec: no snapshot)', () => {
      const job = new Job();
      job.started();
      const step = job.captured(null);
      expect(step.view()).toMatchObject({ snapshot: null });
      expect(step.sent(PlanArtifact)[0]?.chunks).toEqual([{ chunk_id: 'request', source_id: 'request', text: input.content }]);
    });

    it('when the snapshot cannot be captured, then failed with the error', () => {
      const job = new Job();
      const started = job.started();
      const step = job.s.when(
        job.s.event(ArtifactStepFailed, { runId: job.s.runId, commandId: commandOf(started), step: 'snapshot', errorCode: 'unknown_sources', error: 'unknown source ids: x' }),
      );
      expect(step.state).toBe('failed');
      expect(step.view()).toMatchObject({ status: 'failed', error: 'snapshot: unknown source ids: x' });
    });

    it('when the snapshot step times out, then failed', () => {
      const job = new Job();
      job.started();
      const step = job.s.when(timeoutOf('snapshot', 1));
      expect(step.state).toBe('failed');
      expect(step.view()).toMatchObject({ error: 'snapshot capture timed out' });
    });

    it('when a retry timer fires without a queued retry, then it is ignored', () => {
      const job = new Job();
      job.started();
      expect(job.s.when({ kind: 'timer', name: 'retry', payload: {} }).outcome).toBe('ignored');
    });
  });

  describe('given a planning job', () => {
    it('when the plan arrives, then generating at 20% with the plan stored and sent to the generator', () => {
      const job = new Job();
      job.started();
      job.captured();
      const step = job.planned();
      expect(step.state).toBe('generating');
      expect(step.view()).toMatchObject({ status: 'generating', progress: 20, plan, plan_computations: 1 });
      expect(step.sent(GenerateArtifact)).toEqual([
        {
          runId: job.s.runId,
          artifactType: 'quiz',
          content: input.content,
          options: input.options,
          chunks: snapshot.chunks,
          plan,
          generation: 1,
          previousError: null,
        },
      ]);
    });

    it('when a reply to another command arrives, then it is ignored', () => {
      const job = new Job();
      job.started();
      job.captured();
      const step = job.s.when(job.s.event(ArtifactPlanned, { runId: job.s.runId, commandId: 'someone-else', plan, reused: false, chunksLoaded: 2 }));
      expect(step.outcome).toBe('ignored');
      expect(job.s.run.state).toBe('planning');
    });

    const plannerUnavailable = (job: Job, commandId: string): ScenarioStep =>
      job.record(
        job.s.when(job.s.event(ArtifactStepFailed, { runId: job.s.runId, commandId, step: 'planning', errorCode: 'llm_unavailable', error: 'every model failed' })),
      );

    it('when the planner is unavailable, then the plan is retried with backoff as a new command, and the job fails only after the last try', () => {
      const job = new Job();
      job.started();
      let planId = commandOf(job.captured());
      const delays: number[] = [];
      for (const tryNo of [2, 3]) {
        const failed = plannerUnavailable(job, planId);
        expect(failed.state).toBe('planning');
        expect(failed.messages()).toEqual([]);
        const backoffOver = backoffTimerSetBy(failed, 'plan:1');
        delays.push((failed.applied.logs.find((l) => l.stepName === 'retry_scheduled')?.payload as { backoff_ms: number }).backoff_ms);
        // The failed try's answer is not awaited any more.
        expect(plannerUnavailable(job, planId).outcome).toBe('ignored');
        const retried = job.record(job.s.advance(30_000).when(backoffOver));
        expect(retried.sent(PlanArtifact)).toEqual([expect.objectContaining({ storedPlan: null, chunks: snapshot.chunks })]);
        planId = commandOf(retried);
        expect(planId).toBe(commandIdFor(job.s.runId, 1, `plan:1:${tryNo}`));
      }
      expect(delays).toEqual([2_000, 8_000]);
      const step = plannerUnavailable(job, planId);
      expect(step.state).toBe('failed');
      expect(step.view()).toMatchObject({ error: 'planning: every model failed' });
      expect(job.messages()).toContain('✗ planning failed after 3 tries: planning: every model failed');
    });

    it('when planning times out, then it is retried; the retried plan moves the job on', () => {
      const job = new Job();
      job.started();
      job.captured();
      const timedOut = job.s.when(timeoutOf('plan:1', 1));
      expect(timedOut.state).toBe('planning');
      expect(timedOut.applied.logs).toContainEqual(expect.objectContaining({ stepName: 'retry_scheduled', payload: expect.objectContaining({ reason: 'planning timed out' }) }));
      const backoffOver = backoffTimerSetBy(timedOut, 'plan:1');
      // A backoff timer of another try is stale.
      expect(job.s.when({ ...backoffOver, payload: { ...backoffOver.payload, tries: 2 } }).outcome).toBe('ignored');
      job.record(job.s.advance(2_000).when(backoffOver));
      expect(job.planned().state).toBe('generating');
    });
  });

  describe('given a generating job', () => {
    it('when the artifact is generated, then validating at 60% and the validator gets it with the snapshot chunks', () => {
      const job = new Job();
      job.started();
      job.captured();
      job.planned();
      const step = job.generated();
      expect(step.state).toBe('validating');
      expect(step.view()).toMatchObject({ status: 'validating', progress: 60, result: null });
      expect(step.sent(ValidateArtifact)).toEqual([
        { runId: job.s.runId, artifactType: 'quiz', options: input.options, generation: 1, result: quiz, chunks: snapshot.chunks },
      ]);
    });

    it('when generation times out on every try, then failed', () => {
      const job = new Job();
      job.started();
      job.captured();
      job.planned();
      for (const tryNo of [2, 3]) {
        const timedOut = job.s.when(timeoutOf('generate:1', tryNo - 1));
        expect(timedOut.state).toBe('generating');
        const retried = job.record(job.s.advance(30_000).when(backoffTimerSetBy(timedOut, 'generate:1')));
        expect(retried.sent(GenerateArtifact)).toEqual([expect.objectContaining({ plan, generation: 1 })]);
      }
      expect(job.s.when(timeoutOf('generate:1', 3)).view()).toMatchObject({ status: 'failed', error: 'generating timed out' });
    });

    it('when the output misses the schema, then it is a validation failure: re-queued once with the stored plan (spec: "Missing \'questions\' field → Retry 1/1 queued")', () => {
      const job = new Job();
      job.started();
      job.captured();
      const generating = job.planned();
      const missing = "Missing 'questions' field";
      const step = job.record(
        job.s.when(job.s.event(ArtifactStepFailed, { runId: job.s.runId, commandId: commandOf(generating), step: 'generating', errorCode: 'invalid_output', error: missing })),
      );
      expect(step.state).toBe('pending');
      expect(step.view()).toMatchObject({ status: 'pending', progress: 0, retries: 1, validation_error: missing, plan });
      expect(job.messages().slice(-3)).toEqual([`✗ Validation failed: ${missing}`, '→ Retry 1/1 queued', '→ Status: pending (0%)']);
      const fetched = job.retryFires();
      expect(fetched.sent(PlanArtifact)).toEqual([expect.objectContaining({ storedPlan: plan })]);
      const again = job.planned(true);
      expect(again.sent(GenerateArtifact)).toEqual([expect.objectContaining({ plan, generation: 2, previousError: missing })]);
      const failed = job.record(
        job.s.when(job.s.event(ArtifactStepFailed, { runId: job.s.runId, commandId: commandOf(again), step: 'generating', errorCode: 'invalid_output', error: missing })),
      );
      expect(failed.view()).toMatchObject({ status: 'failed', error: `validation failed after 1 retry: ${missing}` });
    });
  });

  describe('given a validating job', () => {
    it('when the worker reports checking structure, then 90%; an older or repeated progress is ignored', () => {
      const job = new Job();
      const validateId = job.toValidating();
      const step = job.progress(validateId, 90);
      expect(step.outcome).toBe('applied');
      expect(step.state).toBe('validating');
      expect(step.view()).toMatchObject({ status: 'validating', progress: 90 });
      expect(job.progress(validateId, 90).outcome).toBe('ignored');
      expect(job.progress('another-command', 95).outcome).toBe('ignored');
    });

    it('when valid, then completed at 100% with the result in the view', () => {
      const job = new Job();
      const validateId = job.toValidating();
      job.progress(validateId);
      const step = job.validated(validateId, true);
      expect(step.state).toBe('completed');
      expect(step.view()).toMatchObject({ status: 'completed', progress: 100, result: quiz, error: null, retries: 0 });
    });

    it('walks progress 0 → 0 → 20 → 60 → 90 → 100 and writes the spec trace to the step log', () => {
      const job = new Job();
      const views = [job.started(), job.captured(), job.planned(), job.generated()].map((s) => s.view());
      const validateId = commandOf(job.last);
      views.push(job.progress(validateId).view(), job.validated(validateId, true).view());
      expect(views.map((v) => [v?.['status'], v?.['progress']])).toEqual([
        ['pending', 0],
        ['planning', 0],
        ['generating', 20],
        ['validating', 60],
        ['validating', 90],
        ['completed', 100],
      ]);
      const id = job.s.runId;
      expect(job.messages()).toEqual([
        'Intent classified: artifact (quiz)',
        'Fingerprint: a7f9b2c3d4e5f6...',
        `✓ Created job: ${id}`,
        '→ Status: pending (0%)',
        `Retrieval snapshot captured: 2 chunks from 2 sources (embedding ${snapshot.embedding_version})`,
        `Worker fetched job: ${id}`,
        '→ Status: planning (0%)',
        'Phase 1: Planning quiz structure...',
        '→ Loaded 2 chunks from snapshot',
        '→ LLM planning call complete',
        '✓ Plan created: 2 concepts',
        '→ Status: planning (20%)',
        'Phase 2: Generating quiz content...',
        '→ Status: generating (20%)',
        '→ LLM generation call complete',
        '✓ Generated artifact: 2 questions',
        '→ Status: generating (60%)',
        '✅ Phase 3: Validating quiz...',
        '→ Status: validating (60%)',
        '→ Checking structure (90%)',
        '✓ Validation passed',
        '→ Status: completed (100%)',
        `✅ Job ${id} completed successfully`,
      ]);
      // The state changes themselves are rows too, named after what happened.
      expect(job.logs().filter((l) => l.stateBefore !== l.stateAfter || l.stepName === 'job_queued').map((l) => `${l.stepName}:${l.stateAfter}`)).toEqual([
        'run_started:pending',
        'job_queued:pending',
        'planning_started:planning',
        'generating_started:generating',
        'validating_started:validating',
        'completed:completed',
      ]);
    });

    it('when the validation answer comes before the progress report, then 90% is logged and the late report ignored', () => {
      const job = new Job();
      const validateId = job.toValidating();
      const done = job.validated(validateId, true);
      expect(done.state).toBe('completed');
      expect(job.messages()).toContain('→ Checking structure (90%)');
      expect(job.progress(validateId).outcome).toBe('ignored');
    });

    it('when validation times out, then it is retried like plan and generate (a new command, same result and chunks); the retried answer completes the job', () => {
      const job = new Job();
      const firstId = job.toValidating();
      const timedOut = job.record(job.s.when(timeoutOf('validate:1', 1)));
      expect(timedOut.state).toBe('validating');
      expect(timedOut.applied.logs).toContainEqual(expect.objectContaining({ stepName: 'retry_scheduled', payload: expect.objectContaining({ reason: 'validating timed out' }) }));
      const retried = job.record(job.s.advance(30_000).when(backoffTimerSetBy(timedOut, 'validate:1')));
      expect(retried.sent(ValidateArtifact)).toEqual([{ runId: job.s.runId, artifactType: 'quiz', options: input.options, generation: 1, result: quiz, chunks: snapshot.chunks }]);
      const secondId = commandOf(retried);
      expect(secondId).toBe(commandIdFor(job.s.runId, 1, 'validate:1:2'));
      // The timed-out try's late answer is not awaited any more; the retried one's is.
      expect(job.validated(firstId, true).outcome).toBe('ignored');
      expect(job.validated(secondId, true).state).toBe('completed');
    });

    it('when validation times out on every try, then failed', () => {
      const job = new Job();
      job.toValidating();
      for (const tryNo of [2, 3]) {
        const timedOut = job.s.when(timeoutOf('validate:1', tryNo - 1));
        expect(timedOut.state).toBe('validating');
        job.record(job.s.advance(30_000).when(backoffTimerSetBy(timedOut, 'validate:1')));
      }
      expect(job.record(job.s.when(timeoutOf('validate:1', 3))).view()).toMatchObject({ status: 'failed', error: 'validating timed out' });
      expect(job.messages()).toContain('✗ validating failed after 3 tries: validating timed out');
    });

  });

  describe('the retry-once rule', () => {
    it('re-queues a job that fails validation in pending at 0%, then reuses the plan and snapshot', () => {
      const job = new Job();
      const validateId = job.toValidating();
      job.progress(validateId);
      const failed = job.validated(validateId, false, "Missing 'questions' field");
      expect(failed.state).toBe('pending');
      expect(failed.view()).toMatchObject({ status: 'pending', progress: 0, retries: 1, result: null, validation_error: "Missing 'questions' field", plan });
      expect(failed.messages()).toEqual([]);
      expect(failed.applied.timers).toContainEqual(expect.objectContaining({ op: 'set', name: 'retry' }));

      const fetched = job.retryFires();
      expect(fetched.state).toBe('planning');
      expect(fetched.view()).toMatchObject({ status: 'planning', progress: 0 });
      expect(fetched.sent(PlanArtifact)).toEqual([expect.objectContaining({ storedPlan: plan, chunks: snapshot.chunks })]);
      expect(fetched.messages()[0]?.envelope.id).toBe(commandIdFor(job.s.runId, 1, tryKey('plan:2', 1)));

      const replanned = job.planned(true, { ...plan, concepts: ['something', 'else'] });
      expect(replanned.view()).toMatchObject({ status: 'generating', progress: 20, plan, plan_computations: 1 });
      expect(replanned.sent(GenerateArtifact)).toEqual([expect.objectContaining({ plan, generation: 2, previousError: "Missing 'questions' field", chunks: snapshot.chunks })]);

      const validateAgain = commandOf(job.generated(2));
      job.progress(validateAgain);
      const done = job.validated(validateAgain, true, null, 2);
      expect(done.view()).toMatchObject({ status: 'completed', progress: 100, retries: 1, result: quiz, plan_computations: 1 });
      expect(job.messages()).toEqual(
        expect.arrayContaining([
          "✗ Validation failed: Missing 'questions' field",
          '→ Retry 1/1 queued',
          `Worker fetched job: ${job.s.runId} (retry 1)`,
          '→ Stored plan loaded from the job (not recomputed)',
          '✓ Plan reused: 2 concepts',
        ]),
      );
    });

    it('ignores the first generation’s validation answer once the retry is under way', () => {
      const job = new Job();
      const first = job.toValidating();
      job.validated(first, false, 'bad');
      job.retryFires();
      expect(job.validated(first, true).outcome).toBe('ignored');
      expect(job.s.run.state).toBe('planning');
    });

    it('fails permanently with the error when the retry fails validation too', () => {
      const job = new Job();
      job.validated(job.toValidating(), false, 'question 1: the options are not unique');
      job.retryFires();
      job.planned(true);
      const second = commandOf(job.generated(2));
      const step = job.validated(second, false, 'question 1: the options are not unique', 2);
      expect(step.state).toBe('failed');
      expect(step.view()).toMatchObject({
        status: 'failed',
        retries: 1,
        result: null,
        error: 'validation failed after 1 retry: question 1: the options are not unique',
      });
      expect(job.messages().at(-1)).toBe(`✗ Job ${job.s.runId} failed: validation failed after 1 retry: question 1: the options are not unique`);
      expect(job.s.when({ kind: 'timer', name: 'retry', payload: {} }).outcome).toBe('ignored');
    });
  });

  describe('a finished job', () => {
    it('ignores late replies and is refused a cancel', () => {
      const job = new Job();
      const validateId = job.toValidating();
      job.validated(validateId, true);
      expect(job.validated(validateId, false, 'late').outcome).toBe('ignored');
      expect(job.s.when({ kind: 'cancel', userId: 'user-1' }).outcome).toBe('refused');
    });
  });

  it('has no cancelled state: a cancel of a running job is refused as an illegal transition', () => {
    const job = new Job();
    job.started();
    const step = job.s.when({ kind: 'cancel', userId: 'user-1' });
    expect(step.outcome).toBe('refused');
    expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'illegal_transition' })]);
  });

  it('replays from its step log to the same states, retry included', () => {
    const job = new Job();
    job.validated(job.toValidating(), false, 'bad');
    job.retryFires();
    job.planned(true);
    const second = commandOf(job.generated(2));
    job.progress(second);
    job.validated(second, true, null, 2);
    const report = replayRun(definition, { id: job.s.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, job.logs());
    expect(report).toEqual({ ok: true, finalState: 'completed', mismatches: [] });
  });
});
