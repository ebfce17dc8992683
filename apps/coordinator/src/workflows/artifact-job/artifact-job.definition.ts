import {
  ARTIFACT_JOB_WORKFLOW,
  ArtifactGenerated,
  ArtifactJobProgress,
  type ArtifactJobInput,
  artifactJobInput,
  type ArtifactJobStatus,
  type ArtifactJobView,
  ArtifactPlanned,
  type ArtifactPlan,
  type ArtifactResult,
  ArtifactStepFailed,
  ArtifactValidated,
  CaptureSnapshot,
  GenerateArtifact,
  PlanArtifact,
  REQUEST_CHUNK_ID,
  type RetrievalSnapshot,
  type SnapshotChunk,
  SnapshotCaptured,
  ValidateArtifact,
} from '@openpaw/contracts';
import {
  backoffDelay,
  commandIdFor,
  type Decision,
  type Effect,
  eventOf,
  type JsonObject,
  type RunSnapshot,
  type SagaDefinition,
  type SagaInput,
  type StepLogEntry,
  stepTimeoutInputName,
  stepTimerName,
} from '@openpaw/saga';
import { type ArtifactJobTimings, DEFAULT_ARTIFACT_JOB_TIMINGS } from './artifact-job.timings.js';
import { itemCount, line, shortFingerprint, statusLine } from './lifecycle-log.js';

export type ArtifactJobState = ArtifactJobStatus;

/** Validation failures retry once from `pending` with the same plan and snapshot (spec 02). */
export const MAX_VALIDATION_RETRIES = 1;

/** Progress per point of the pipeline (spec 02: 0 → 20 → 60 → 90 → 100). */
export const PROGRESS = { pending: 0, planning: 0, planned: 20, generated: 60, checking: 90, completed: 100 } as const;

/** The timer a validation failure sets: when it fires, a worker takes the job again. */
export const RETRY_TIMER = 'retry';

export interface ArtifactJobData {
  readonly request: ArtifactJobInput;
  readonly progress: number;
  /** Captured once at creation; `null` when the notebook had no sources. */
  readonly snapshot: RetrievalSnapshot | null;
  readonly snapshotCaptured: boolean;
  /** Stored by phase 1 and reused on retry. */
  readonly plan: ArtifactPlan | null;
  readonly planComputations: number;
  /** Generation in progress: 1, or 2 on the retry. */
  readonly generation: number;
  /** Tries of the plan or generate step in progress (a transient failure is retried with backoff). */
  readonly stepTries: number;
  readonly retries: number;
  /** Effect key of the command whose reply the job waits for (`snapshot`, `plan:1`, ...), if any. */
  readonly awaiting: string | null;
  readonly result: ArtifactResult | null;
  readonly validationError: string | null;
  readonly error: string | null;
}

type D = ArtifactJobData;
type S = ArtifactJobState;
type Run = RunSnapshot<S, D>;

const PHASE = { plan: 'planning', generate: 'generating', validate: 'validating', snapshot: 'snapshot capture' } as const;

/** The steps whose transient failures are retried with backoff (LLM calls). */
type RetriedStep = 'plan' | 'generate';
const RETRIED_STEP_OF_STATE: Partial<Record<S, RetriedStep>> = { planning: 'plan', generating: 'generate' };

/** The timer of a transient retry's backoff. */
export function stepRetryTimer(step: RetriedStep): string {
  return `retry:${step}`;
}

/** The effect key of a try: `plan:1` for the first try of generation 1, `plan:1:2` for its second (its own command id, so the service does not answer it from its reply store). */
export function stepKey(step: RetriedStep, generation: number, tries: number): string {
  return tries <= 1 ? `${step}:${generation}` : `${step}:${generation}:${tries}`;
}


/** What the worker may use: the snapshot's chunks, or the request's content when there was nothing to retrieve. */
export function workerChunks(data: D): SnapshotChunk[] {
  const chunks = data.snapshot?.chunks ?? [];
  return chunks.length > 0 ? chunks : [{ chunk_id: REQUEST_CHUNK_ID, source_id: REQUEST_CHUNK_ID, text: data.request.content }];
}

const chunkCount = (n: number): string => `${n} ${n === 1 ? 'chunk' : 'chunks'}`;
const sourceCount = (n: number): string => `${n} ${n === 1 ? 'source' : 'sources'}`;

function awaitingReply(run: Run, commandId: string): boolean {
  return run.data.awaiting !== null && commandIdFor(run.id, run.attemptNo, run.data.awaiting) === commandId;
}

function nouns(type: ArtifactJobInput['artifact_type']): { structure: string; content: string; name: string } {
  return { structure: `Planning ${type} structure...`, content: `Generating ${type} content...`, name: type };
}

/**
 * The `artifact_job` saga (spec 02): pending → planning → generating → validating → completed |
 * failed, progress 0 → 20 → 60 → 90 → 100. The retrieval snapshot is captured while the job is
 * created (the gateway asks the artifacts service before it starts the job, and the start input
 * carries it; a start without one captures it as its first step) and stored with the job; every worker command carries the
 * snapshot's chunks (the worker never re-queries). A validation failure re-queues the job once in
 * `pending` with the same plan and snapshot (the plan is reused, not recomputed); a second failure
 * fails it with the validator's error. The trace lines of the spec go to the step log.
 */
export function artifactJobDefinition(timings: ArtifactJobTimings = DEFAULT_ARTIFACT_JOB_TIMINGS): SagaDefinition<S, D> {
  const send = (message: Parameters<typeof sendEffect>[0], data: unknown, key: string, timeoutMs: number): Effect =>
    sendEffect(message, data, key, timeoutMs, timings.maxResends);

  const planCommand = (run: Run, data: D): Effect =>
    send(
      PlanArtifact,
      {
        runId: run.id,
        artifactType: data.request.artifact_type,
        content: data.request.content,
        options: data.request.options,
        chunks: workerChunks(data),
        storedPlan: data.plan,
      },
      stepKey('plan', data.generation, data.stepTries),
      timings.planTimeoutMs,
    );

  const generateCommand = (run: Run, data: D): Effect =>
    send(
      GenerateArtifact,
      {
        runId: run.id,
        artifactType: data.request.artifact_type,
        content: data.request.content,
        options: data.request.options,
        chunks: workerChunks(data),
        plan: data.plan,
        generation: data.generation,
        previousError: data.validationError,
      },
      stepKey('generate', data.generation, data.stepTries),
      timings.generateTimeoutMs,
    );

  /** A worker takes the job: pending → planning with the snapshot's chunks (first time or retry). */
  const fetchedByWorker = (run: Run, data: D, logs: StepLogEntry[]): Decision<S, D> => {
    const retry = data.retries > 0 ? ` (retry ${data.retries})` : '';
    const next: D = { ...data, progress: PROGRESS.planning, stepTries: 1, awaiting: stepKey('plan', data.generation, 1) };
    return {
      outcome: 'transition',
      to: 'planning',
      data: next,
      step: 'planning_started',
      logs: [
        ...logs,
        line('worker_fetched', `Worker fetched job: ${run.id}${retry}`, { retry: data.retries }),
        statusLine('planning', PROGRESS.planning),
        line('phase_started', `Phase 1: ${nouns(data.request.artifact_type).structure}`, { phase: 1 }),
        line('snapshot_loaded', `→ Loaded ${chunkCount(workerChunks(data).length)} from snapshot`, { chunks: workerChunks(data).length, from_snapshot: data.snapshot !== null }),
      ],
      effects: [planCommand(run, next)],
    };
  };

  const fail = (run: Run, reason: string, logs: StepLogEntry[] = []): Decision<S, D> => ({
    outcome: 'transition',
    to: 'failed',
    data: { ...run.data, awaiting: null, error: reason },
    step: 'failed',
    logs: [...logs, line('job_failed', `✗ Job ${run.id} failed: ${reason}`, { error: reason })],
  });

  const onStart = (run: Run): Decision<S, D> => {
    const request = run.data.request;
    const created = [
      line('intent_classified', `Intent classified: artifact (${request.artifact_type})`, { router: request.intent.router, reason: request.intent.reason }),
      line('fingerprint', `Fingerprint: ${shortFingerprint(request.fingerprint)}`, { fingerprint: request.fingerprint, sequence: request.sequence }),
      line('job_created', `✓ Created job: ${run.id}`),
      statusLine('pending', PROGRESS.pending),
    ];
    // Captured by the gateway while it created the job: stored as it is, and a worker takes the job.
    if (request.snapshot !== undefined) return withSnapshot(run, run.data, request.snapshot, created);
    return {
      outcome: 'stay',
      data: { ...run.data, awaiting: 'snapshot' },
      step: 'job_queued',
      logs: created,
      effects: [
        send(
          CaptureSnapshot,
          {
            runId: run.id,
            userId: run.userId,
            notebookId: request.notebook_id,
            sourceIds: request.source_ids,
            query: request.content,
            k: timings.snapshotK,
          },
          'snapshot',
          timings.snapshotTimeoutMs,
        ),
      ],
    };
  };

  const onPending = (run: Run, input: SagaInput): Decision<S, D> => {
    const data = run.data;
    const captured = eventOf(input, SnapshotCaptured);
    if (captured !== undefined) {
      if (data.snapshotCaptured || !awaitingReply(run, captured.data.commandId)) return { outcome: 'ignore', reason: 'not the awaited snapshot' };
      return withSnapshot(run, data, captured.data.snapshot, []);
    }
    if (input.kind === 'timer' && input.name === RETRY_TIMER) {
      if (!data.snapshotCaptured || data.plan === null || data.awaiting !== null) return { outcome: 'ignore', reason: 'no retry is queued' };
      return fetchedByWorker(run, data, []);
    }
    return onFailureInputs(run, input);
  };

  /** The snapshot is stored with the job (once) and a worker takes it. */
  const withSnapshot = (run: Run, data: D, snapshot: RetrievalSnapshot | null, logs: StepLogEntry[]): Decision<S, D> => {
    const stored: D = { ...data, snapshot, snapshotCaptured: true };
    const capturedLine =
      snapshot === null
        ? line('snapshot_captured', 'Retrieval snapshot: none (the notebook has no sources); the job content is the only chunk', { chunks: 0 })
        : line(
            'snapshot_captured',
            `Retrieval snapshot captured: ${chunkCount(snapshot.chunks.length)} from ${sourceCount(new Set(snapshot.chunks.map((c) => c.source_id)).size)} (embedding ${snapshot.embedding_version})`,
            { chunks: snapshot.chunks.length, chunk_ids: snapshot.chunks.map((c) => c.chunk_id), embedding_version: snapshot.embedding_version, captured_at: snapshot.captured_at },
          );
    return fetchedByWorker(run, stored, [...logs, capturedLine]);
  };

  const onPlanning = (run: Run, input: SagaInput): Decision<S, D> => {
    const planned = eventOf(input, ArtifactPlanned);
    if (planned === undefined) return onFailureInputs(run, input);
    if (!awaitingReply(run, planned.data.commandId)) return { outcome: 'ignore', reason: 'a reply to another command' };
    const data = run.data;
    const { plan, reused } = planned.data;
    const next: D = {
      ...data,
      plan: reused && data.plan !== null ? data.plan : plan,
      planComputations: data.planComputations + (reused ? 0 : 1),
      progress: PROGRESS.planned,
      stepTries: 1,
      awaiting: stepKey('generate', data.generation, 1),
    };
    const type = data.request.artifact_type;
    return {
      outcome: 'transition',
      to: 'generating',
      data: next,
      step: 'generating_started',
      logs: [
        reused
          ? line('plan_reused', '→ Stored plan loaded from the job (not recomputed)', { reused: true })
          : line('llm_call_complete', '→ LLM planning call complete', { phase: 'planning', model: plan.model }),
        line('plan_created', `✓ Plan ${reused ? 'reused' : 'created'}: ${next.plan?.concepts.length ?? 0} concepts`, {
          concepts: next.plan?.concepts ?? [],
          reused,
        }),
        statusLine('planning', PROGRESS.planned),
        line('phase_started', `Phase 2: ${nouns(type).content}`, { phase: 2 }),
        statusLine('generating', PROGRESS.planned),
      ],
      effects: [generateCommand(run, next)],
    };
  };

  const onGenerating = (run: Run, input: SagaInput): Decision<S, D> => {
    const generated = eventOf(input, ArtifactGenerated);
    if (generated === undefined) return onFailureInputs(run, input);
    if (!awaitingReply(run, generated.data.commandId)) return { outcome: 'ignore', reason: 'a reply to another command' };
    const data = run.data;
    const type = data.request.artifact_type;
    const next: D = { ...data, result: generated.data.result, progress: PROGRESS.generated, awaiting: `validate:${data.generation}` };
    return {
      outcome: 'transition',
      to: 'validating',
      data: next,
      step: 'validating_started',
      logs: [
        line('llm_call_complete', '→ LLM generation call complete', { phase: 'generating', model: generated.data.model, generation: data.generation }),
        line('artifact_generated', `✓ Generated artifact: ${itemCount(type, generated.data.itemCount)}`, { items: generated.data.itemCount }),
        statusLine('generating', PROGRESS.generated),
        line('phase_started', `✅ Phase 3: Validating ${nouns(type).name}...`, { phase: 3 }),
        statusLine('validating', PROGRESS.generated),
      ],
      effects: [
        send(
          ValidateArtifact,
          {
            runId: run.id,
            artifactType: type,
            options: data.request.options,
            generation: data.generation,
            result: generated.data.result,
            chunks: workerChunks(data),
          },
          `validate:${data.generation}`,
          timings.validateTimeoutMs,
        ),
      ],
    };
  };

  const onValidating = (run: Run, input: SagaInput): Decision<S, D> => {
    const data = run.data;
    const progress = eventOf(input, ArtifactJobProgress);
    if (progress !== undefined) {
      const p = progress.data;
      if (!awaitingReply(run, p.commandId) || p.phase !== 'validating' || p.progress <= data.progress) {
        return { outcome: 'ignore', reason: 'stale progress' };
      }
      return {
        outcome: 'stay',
        data: { ...data, progress: p.progress },
        step: 'progress',
        logs: [line('progress', `→ ${p.detail} (${p.progress}%)`, { progress: p.progress })],
      };
    }
    const validated = eventOf(input, ArtifactValidated);
    if (validated === undefined) return onFailureInputs(run, input);
    if (!awaitingReply(run, validated.data.commandId)) return { outcome: 'ignore', reason: 'a reply to another command' };
    const checking = data.progress < PROGRESS.checking ? [line('progress', `→ Checking structure (${PROGRESS.checking}%)`, { progress: PROGRESS.checking })] : [];
    if (validated.data.valid) {
      return {
        outcome: 'transition',
        to: 'completed',
        data: { ...data, progress: PROGRESS.completed, awaiting: null, validationError: null },
        step: 'completed',
        logs: [
          ...checking,
          line('validation_passed', '✓ Validation passed', { generation: data.generation }),
          statusLine('completed', PROGRESS.completed),
          line('job_completed', `✅ Job ${run.id} completed successfully`),
        ],
      };
    }
    return validationFailed(run, validated.data.error ?? 'the artifact failed validation', validated.data.errors, checking);
  };

  /**
   * The artifact is not valid (the validator said so, or the generated output missed the schema):
   * re-queued once in `pending` with the same plan and snapshot, then failed.
   */
  const validationFailed = (run: Run, error: string, errors: readonly string[], logs: StepLogEntry[]): Decision<S, D> => {
    const data = run.data;
    const failedLine = line('validation_failed', `✗ Validation failed: ${error}`, { error, errors: [...errors], generation: data.generation });
    if (data.retries >= MAX_VALIDATION_RETRIES) {
      return fail(run, `validation failed after ${data.retries} ${data.retries === 1 ? 'retry' : 'retries'}: ${error}`, [...logs, failedLine]);
    }
    const retries = data.retries + 1;
    return {
      outcome: 'transition',
      to: 'pending',
      // Same snapshot and plan; the rejected result is dropped.
      data: { ...data, retries, generation: data.generation + 1, progress: PROGRESS.pending, awaiting: null, result: null, validationError: error },
      step: 'retry_queued',
      logs: [
        ...logs,
        failedLine,
        line('retry_queued', `→ Retry ${retries}/${MAX_VALIDATION_RETRIES} queued`, { retry: retries, delay_ms: timings.retryDelayMs }),
        statusLine('pending', PROGRESS.pending),
      ],
      effects: [{ type: 'setTimer', name: RETRY_TIMER, afterMs: timings.retryDelayMs }],
    };
  };

  /**
   * A plan or generate step failed transiently (the model unavailable after the provider's own
   * retries, or the step timed out): the same step again after a backoff, up to `maxStepTries`.
   */
  const retryOrFail = (run: Run, step: RetriedStep, reason: string): Decision<S, D> => {
    const data = run.data;
    const tries = data.stepTries;
    if (tries >= timings.maxStepTries) {
      return fail(run, reason, [line('step_failed', `✗ ${PHASE[step]} failed after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${reason}`, { step, tries, reason })]);
    }
    const delayMs = backoffDelay(timings.stepBackoff, tries);
    const failedKey = stepKey(step, data.generation, tries);
    return {
      outcome: 'stay',
      data: { ...data, stepTries: tries + 1, awaiting: null },
      step: 'step_backoff',
      logs: [line('retry_scheduled', `→ ${PHASE[step]} failed (${reason}); try ${tries + 1}/${timings.maxStepTries} in ${delayMs} ms`, { step, failed_try: tries, backoff_ms: delayMs, reason })],
      effects: [
        { type: 'clearTimer', name: stepTimerName(failedKey) },
        { type: 'setTimer', name: stepRetryTimer(step), afterMs: delayMs, payload: { step, tries: tries + 1, generation: data.generation } },
      ],
    };
  };

  /** The backoff is over: the next try of the step, as its own command. */
  const nextTry = (run: Run, step: RetriedStep): Decision<S, D> => {
    const data: D = { ...run.data, awaiting: stepKey(step, run.data.generation, run.data.stepTries) };
    return {
      outcome: 'stay',
      data,
      step: 'step_resent',
      logs: [line('step_retried', `→ ${PHASE[step]}: try ${data.stepTries}/${timings.maxStepTries}`, { step, try: data.stepTries })],
      effects: [step === 'plan' ? planCommand(run, data) : generateCommand(run, data)],
    };
  };

  /** A step's failure reply or timeout: retried, re-queued (invalid output) or the end of the job; anything else is not for this state. */
  const onFailureInputs = (run: Run, input: SagaInput): Decision<S, D> => {
    const retried = RETRIED_STEP_OF_STATE[run.state];
    const failed = eventOf(input, ArtifactStepFailed);
    if (failed !== undefined) {
      if (!awaitingReply(run, failed.data.commandId)) return { outcome: 'ignore', reason: 'a reply to another command' };
      const reason = `${failed.data.step}: ${failed.data.error}`;
      if (retried !== undefined && failed.data.errorCode === 'llm_unavailable') return retryOrFail(run, retried, reason);
      // Output that misses the artifact's schema is a validation failure (spec 02: "Missing 'questions' field → Retry 1/1 queued").
      if (retried === 'generate' && failed.data.errorCode === 'invalid_output') return validationFailed(run, failed.data.error, [failed.data.error], []);
      return fail(run, reason);
    }
    if (input.kind !== 'timer') return { outcome: 'ignore', reason: `nothing to do in ${run.state}` };
    const awaiting = run.data.awaiting;
    if (awaiting !== null && input.name === stepTimeoutInputName(awaiting)) {
      const step = awaiting.split(':')[0] as keyof typeof PHASE;
      const reason = `${PHASE[step]} timed out`;
      return retried !== undefined ? retryOrFail(run, retried, reason) : fail(run, reason);
    }
    if (retried !== undefined && awaiting === null && input.name === stepRetryTimer(retried) && input.payload['tries'] === run.data.stepTries) {
      return nextTry(run, retried);
    }
    return { outcome: 'ignore', reason: `nothing to do in ${run.state}` };
  };

  return {
    type: ARTIFACT_JOB_WORKFLOW,
    states: ['pending', 'planning', 'generating', 'validating', 'completed', 'failed'],
    initial: 'pending',
    transitions: {
      pending: ['planning', 'failed'],
      planning: ['generating', 'failed'],
      generating: ['validating', 'pending', 'failed'],
      validating: ['completed', 'pending', 'failed'],
    },
    terminal: ['completed', 'failed'],
    inputs: [SnapshotCaptured, ArtifactPlanned, ArtifactGenerated, ArtifactJobProgress, ArtifactValidated, ArtifactStepFailed],

    init(input: JsonObject): D {
      const request = artifactJobInput.parse(input);
      return {
        request,
        progress: PROGRESS.pending,
        snapshot: null,
        snapshotCaptured: false,
        plan: null,
        planComputations: 0,
        generation: 1,
        stepTries: 1,
        retries: 0,
        awaiting: null,
        result: null,
        validationError: null,
        error: null,
      };
    },

    decide(run, input): Decision<S, D> {
      if (input.kind === 'start') return onStart(run);
      switch (run.state) {
        case 'pending':
          return onPending(run, input);
        case 'planning':
          return onPlanning(run, input);
        case 'generating':
          return onGenerating(run, input);
        case 'validating':
          return onValidating(run, input);
        case 'completed':
        case 'failed':
          return { outcome: 'ignore', reason: `run is ${run.state}` };
      }
    },

    view(run): JsonObject {
      const { data } = run;
      const view: ArtifactJobView = {
        job_id: run.id,
        status: run.state,
        progress: data.progress,
        artifact_type: data.request.artifact_type,
        notebook_id: data.request.notebook_id,
        source_ids: data.request.source_ids,
        fingerprint: data.request.fingerprint,
        sequence: data.request.sequence,
        snapshot:
          data.snapshot === null
            ? null
            : {
                source_ids: data.snapshot.source_ids,
                chunk_ids: data.snapshot.chunks.map((c) => c.chunk_id),
                embedding_version: data.snapshot.embedding_version,
                captured_at: data.snapshot.captured_at,
              },
        plan: data.plan,
        plan_computations: data.planComputations,
        retries: data.retries,
        result: run.state === 'completed' ? data.result : null,
        error: data.error,
        validation_error: data.validationError,
      };
      return view;
    },
  };
}

function sendEffect(
  message: typeof CaptureSnapshot | typeof PlanArtifact | typeof GenerateArtifact | typeof ValidateArtifact,
  data: unknown,
  key: string,
  timeoutMs: number,
  maxResends: number,
): Effect {
  return { type: 'send', message, data, key, timeout: { afterMs: timeoutMs, maxResends } };
}
