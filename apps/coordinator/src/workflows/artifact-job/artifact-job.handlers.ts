import { clearPendingRetry, firstTry, nextTry } from '@openpaw/saga';
import { captureSnapshot, generateArtifact, retriedCommand, validateArtifact } from './artifact-job.commands.js';
import { type DataAt, factsOf, generateStep, PHASE, PROGRESS, type RetriedData, retriedKindOf, validateStep } from './artifact-job.data.js';
import { type JobDecision, type Run, toPlanning, withStep } from './artifact-job.outcomes.js';
import type { ArtifactJobTimings } from './artifact-job.timings.js';
import * as trace from './artifact-job.trace.js';

/** The handlers of the rows that are one stage's own (the decisions several rows reach are in artifact-job.outcomes.ts). */

/** pending: the job is created; its snapshot is captured, or (given by the gateway) stored and the job goes to planning. */
export function started(run: Run, data: DataAt<'created'>, timings: ArtifactJobTimings): JobDecision {
  const created = trace.jobCreated(run.id, data.request);
  const { snapshot } = data.request;
  // Captured by the gateway while it created the job: stored as it is, and a worker takes the job.
  if (snapshot !== undefined) return toPlanning(run, data, snapshot, undefined, timings, [...created, trace.snapshotCaptured(snapshot)]);
  const capturing: DataAt<'capturing'> = { ...factsOf(data), stage: 'capturing', step: firstTry('snapshot') };
  return { outcome: 'stay', data: capturing, step: 'job_queued', logs: created, effects: [captureSnapshot(run, capturing, timings)] };
}

/** planning → generating: the plan is stored (the stored one kept when the planner reused it) and sent to the generator. */
export function planned(run: Run, data: DataAt<'planning'>, reply: { plan: DataAt<'generating'>['plan']; reused: boolean }, timings: ArtifactJobTimings): JobDecision {
  // On the retry the planner answers with the stored plan (reused): the job keeps the one it has.
  const plan = reply.reused && data.plan !== undefined ? data.plan : reply.plan;
  const generating: DataAt<'generating'> = {
    ...factsOf(data),
    planComputations: data.planComputations + (reply.reused ? 0 : 1),
    progress: PROGRESS.planned,
    stage: 'generating',
    snapshot: data.snapshot,
    plan,
    step: firstTry(generateStep(data.generation)),
  };
  return {
    outcome: 'transition',
    to: 'generating',
    data: generating,
    step: 'generating_started',
    logs: trace.planned(data.request.artifact_type, plan, reply.reused, reply.plan.model),
    effects: [...clearPendingRetry(data.step), generateArtifact(run, generating, timings)],
  };
}

/** generating → validating: the artifact goes to the validator with the snapshot's chunks. */
export function generated(run: Run, data: DataAt<'generating'>, reply: { result: DataAt<'validating'>['result']; itemCount: number; model: string }, timings: ArtifactJobTimings): JobDecision {
  const validating: DataAt<'validating'> = {
    ...factsOf(data),
    progress: PROGRESS.generated,
    stage: 'validating',
    snapshot: data.snapshot,
    plan: data.plan,
    result: reply.result,
    step: firstTry(validateStep(data.generation)),
  };
  return {
    outcome: 'transition',
    to: 'validating',
    data: validating,
    step: 'validating_started',
    logs: trace.generated(data.request.artifact_type, data.generation, reply.itemCount, reply.model),
    effects: [...clearPendingRetry(data.step), validateArtifact(run, validating, timings)],
  };
}

/** validating → completed (100%). */
export function completed(run: Run, data: DataAt<'validating'>): JobDecision {
  return {
    outcome: 'transition',
    to: 'completed',
    data: { ...factsOf(data), progress: PROGRESS.completed, validationError: null, stage: 'completed', snapshot: data.snapshot, plan: data.plan, result: data.result },
    step: 'completed',
    logs: [...trace.checkedStructure(data.progress), ...trace.validationPassed(run.id, data.generation)],
  };
}

/** The backoff of a plan, generate or validate try is over: its next try (stays). */
export function retried(run: Run, data: RetriedData, timings: ArtifactJobTimings): JobDecision {
  const next = withStep(data, nextTry(data.step));
  const kind = retriedKindOf(next);
  return {
    outcome: 'stay',
    data: next,
    step: 'step_resent',
    logs: [trace.stepRetried(PHASE[kind], kind, next.step.tries, timings.maxStepTries)],
    effects: [retriedCommand(run, next, timings)],
  };
}
