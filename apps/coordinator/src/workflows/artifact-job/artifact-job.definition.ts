import {
  ARTIFACT_JOB_WORKFLOW,
  ArtifactGenerated,
  ArtifactJobProgress,
  artifactJobInput,
  ArtifactPlanned,
  ArtifactStepFailed,
  ArtifactValidated,
  SnapshotCaptured,
} from '@openpaw/contracts';
import {
  decideByTable,
  onEvent,
  onStart,
  onTimer,
  retryTimerName,
  type SagaDefinition,
  stepTimeoutInputName,
  transitionsOf,
  type WorkflowTable,
} from '@openpaw/saga';
import { ARTIFACT_JOB_STATES, type ArtifactJobData, type ArtifactJobState, type DataAt, PHASE, PROGRESS, RETRY_TIMER, type Stage } from './artifact-job.data.js';
import { completed, generated, planned, retried, started } from './artifact-job.handlers.js';
import { currentData } from './artifact-job.legacy.js';
import { afterValidationFailure, ignore, type JobDecision, retryOrFail, type Run, toFailed, toPlanning } from './artifact-job.outcomes.js';
import { answersLatestTry, answersStep, isBackoffOver, isTimeoutOf } from './artifact-job.replies.js';
import type { ArtifactJobTimings } from './artifact-job.timings.js';
import * as trace from './artifact-job.trace.js';
import { artifactJobViewOf } from './artifact-job.view.js';

type S = ArtifactJobState;
type D = ArtifactJobData;

/** The row's handler, for the stage of `pending` (or of its state) it answers in; any other stage ignores the input (a late or stale one). */
function during<K extends Stage>(run: Run, stage: K, decide: (data: DataAt<K>) => JobDecision): JobDecision {
  return run.data.stage === stage ? decide(run.data as DataAt<K>) : ignore(`not for a job ${run.data.stage}`);
}

/**
 * The `artifact_job` saga (spec 02): pending → planning → generating → validating → completed |
 * failed, progress 0 → 20 → 60 → 90 → 100. The retrieval snapshot is captured while the job is
 * created (the gateway asks the artifacts service before it starts the job, and the start input
 * carries it; a start without one captures it as its first step) and stored with the job; every
 * worker command carries the snapshot's chunks (the worker never re-queries). A plan or generate
 * try that fails transiently (the model unavailable, the try timed out), or a validate try that times
 * out, is retried with backoff (libs/saga's step idiom). A validation failure re-queues the job once
 * in `pending` with the same plan and snapshot (the plan is reused, not recomputed); a second failure
 * fails it with the validator's error. The spec's trace lines go to the step log.
 */
export function artifactJobDefinition(timings: ArtifactJobTimings): SagaDefinition<S, D> {
  /** Spec 02's rows: state → input → the states it may move to → decision ([] = stays). */
  const table: WorkflowTable<S, D> = {
    pending: [
      onStart(['planning'], (run) => during(run, 'created', (d) => started(run, d, timings))),
      onEvent(SnapshotCaptured, ['planning'], (run, { data: e }) =>
        during(run, 'capturing', (d) =>
          answersStep(run, d, e.commandId) ? toPlanning(run, d, e.snapshot, undefined, timings, [trace.snapshotCaptured(e.snapshot)]) : ignore('not the awaited snapshot'),
        ),
      ),
      onEvent(ArtifactStepFailed, ['failed'], (run, { data: e }) =>
        during(run, 'capturing', (d) => (answersLatestTry(run, d, e.commandId) ? toFailed(run, d, `${e.step}: ${e.error}`) : ignore('a reply to another command'))),
      ),
      onTimer(stepTimeoutInputName('snapshot'), ['failed'], (run, timer) =>
        during(run, 'capturing', (d) => (isTimeoutOf(d, timer) ? toFailed(run, d, `${PHASE.snapshot} timed out`) : ignore('stale step timeout'))),
      ),
      // The validation retry: a worker takes the job again, with its stored plan and snapshot.
      onTimer(RETRY_TIMER, ['planning'], (run) => during(run, 'queued', (d) => toPlanning(run, d, d.snapshot, d.plan, timings, []))),
    ],
    planning: [
      onEvent(ArtifactPlanned, ['generating'], (run, { data: e }) =>
        during(run, 'planning', (d) => (answersStep(run, d, e.commandId) ? planned(run, d, e, timings) : ignore('a reply to another command'))),
      ),
      onEvent(ArtifactStepFailed, ['failed'], (run, { data: e }) =>
        during(run, 'planning', (d) => {
          if (!answersLatestTry(run, d, e.commandId)) return ignore('a reply to another command');
          const reason = `${e.step}: ${e.error}`;
          return e.errorCode === 'llm_unavailable' ? retryOrFail(run, d, reason, timings, 'failure reply') : toFailed(run, d, reason);
        }),
      ),
      onTimer(stepTimeoutInputName('plan'), ['failed'], (run, timer) =>
        during(run, 'planning', (d) => (isTimeoutOf(d, timer) ? retryOrFail(run, d, `${PHASE.plan} timed out`, timings, 'timeout') : ignore('stale step timeout'))),
      ),
      onTimer(retryTimerName('plan'), [], (run, timer) => during(run, 'planning', (d) => (isBackoffOver(run, d, timer) ? retried(run, d, timings) : ignore('stale retry timer')))),
    ],
    generating: [
      onEvent(ArtifactGenerated, ['validating'], (run, { data: e }) =>
        during(run, 'generating', (d) => (answersStep(run, d, e.commandId) ? generated(run, d, e, timings) : ignore('a reply to another command'))),
      ),
      onEvent(ArtifactStepFailed, ['pending', 'failed'], (run, { data: e }) =>
        during(run, 'generating', (d) => {
          if (!answersLatestTry(run, d, e.commandId)) return ignore('a reply to another command');
          const reason = `${e.step}: ${e.error}`;
          if (e.errorCode === 'llm_unavailable') return retryOrFail(run, d, reason, timings, 'failure reply');
          // Output that misses the artifact's schema is a validation failure (spec 02: "Missing 'questions' field → Retry 1/1 queued").
          if (e.errorCode === 'invalid_output') return afterValidationFailure(run, d, e.error, [e.error], timings);
          return toFailed(run, d, reason);
        }),
      ),
      onTimer(stepTimeoutInputName('generate'), ['failed'], (run, timer) =>
        during(run, 'generating', (d) => (isTimeoutOf(d, timer) ? retryOrFail(run, d, `${PHASE.generate} timed out`, timings, 'timeout') : ignore('stale step timeout'))),
      ),
      onTimer(retryTimerName('generate'), [], (run, timer) => during(run, 'generating', (d) => (isBackoffOver(run, d, timer) ? retried(run, d, timings) : ignore('stale retry timer')))),
    ],
    validating: [
      onEvent(ArtifactJobProgress, [], (run, { data: e }) =>
        during(run, 'validating', (d) => {
          if (!answersLatestTry(run, d, e.commandId) || e.phase !== 'validating' || e.progress <= d.progress) return ignore('stale progress');
          return { outcome: 'stay', data: { ...d, progress: e.progress }, step: 'progress', logs: [trace.progressed(e.detail, e.progress)] };
        }),
      ),
      onEvent(ArtifactValidated, ['completed', 'pending', 'failed'], (run, { data: e }) =>
        during(run, 'validating', (d) => {
          if (!answersLatestTry(run, d, e.commandId)) return ignore('a reply to another command');
          if (e.valid) return completed(run, d);
          return afterValidationFailure(run, d, e.error ?? 'the artifact failed validation', e.errors, timings, trace.checkedStructure(d.progress));
        }),
      ),
      onEvent(ArtifactStepFailed, ['failed'], (run, { data: e }) =>
        during(run, 'validating', (d) => (answersLatestTry(run, d, e.commandId) ? toFailed(run, d, `${e.step}: ${e.error}`) : ignore('a reply to another command'))),
      ),
      // The validator calls no model: only its try's timeout (the command or its answer stuck on a
      // node being failed over) is transient, and retrying it costs nothing.
      onTimer(stepTimeoutInputName('validate'), ['failed'], (run, timer) =>
        during(run, 'validating', (d) => (isTimeoutOf(d, timer) ? retryOrFail(run, d, `${PHASE.validate} timed out`, timings, 'timeout') : ignore('stale step timeout'))),
      ),
      onTimer(retryTimerName('validate'), [], (run, timer) => during(run, 'validating', (d) => (isBackoffOver(run, d, timer) ? retried(run, d, timings) : ignore('stale retry timer')))),
    ],
  };
  const decideRow = decideByTable(ARTIFACT_JOB_WORKFLOW, table);

  return {
    type: ARTIFACT_JOB_WORKFLOW,
    states: ARTIFACT_JOB_STATES,
    initial: 'pending',
    // No cancelled state: spec 02 has none, so the engine refuses a cancel as an illegal transition.
    transitions: transitionsOf(table),
    terminal: ['completed', 'failed'],
    inputs: [SnapshotCaptured, ArtifactPlanned, ArtifactGenerated, ArtifactJobProgress, ArtifactValidated, ArtifactStepFailed],
    init(input): D {
      return { request: artifactJobInput.parse(input), progress: PROGRESS.pending, generation: 1, retries: 0, planComputations: 0, validationError: null, stage: 'created' };
    },
    // Runs stored by the previous definition are read in the current shape (artifact-job.legacy.ts).
    decide: (run, input, context) => decideRow({ ...run, data: currentData(run.state, run.data) }, input, context),
    view: (run) => artifactJobViewOf({ id: run.id, state: run.state, data: currentData(run.state, run.data) }),
  };
}
