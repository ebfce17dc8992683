import { CaptureSnapshot, GenerateArtifact, type MessageData, PlanArtifact, ValidateArtifact } from '@openpaw/contracts';
import { type Effect, type RunSnapshot, sendTry } from '@openpaw/saga';
import type { DataAt, GenerateStep, PlanStep, RetriedData, ValidateStep } from './artifact-job.data.js';
import { workerChunks } from './artifact-job.data.js';
import type { ArtifactJobTimings } from './artifact-job.timings.js';

/**
 * The commands of the job's steps, each the latest try of its step (libs/saga `sendTry`: its own
 * key `<step>:<try>`, so its own id, and its step timeout). Every worker command carries the
 * snapshot's chunks: the worker never re-queries (spec 02).
 */

type RunIdentity = Pick<RunSnapshot, 'id' | 'userId'>;

export function captureSnapshot(run: RunIdentity, data: DataAt<'capturing'>, timings: ArtifactJobTimings): Effect {
  const { request } = data;
  const command: MessageData<typeof CaptureSnapshot> = {
    runId: run.id,
    userId: run.userId,
    notebookId: request.notebook_id,
    sourceIds: request.source_ids,
    query: request.content,
    k: timings.snapshotK,
    // A deferred capture is taken as of the request (spec 02: "captured at creation").
    ...(request.requested_at === undefined ? {} : { asOf: request.requested_at }),
  };
  return sendTry(CaptureSnapshot, command, data.step, timings.snapshotTimeoutMs);
}

export function planArtifact(run: RunIdentity, data: DataAt<'planning'>, timings: ArtifactJobTimings): Effect {
  const command: MessageData<typeof PlanArtifact> = {
    runId: run.id,
    artifactType: data.request.artifact_type,
    content: data.request.content,
    options: data.request.options,
    chunks: workerChunks(data),
    storedPlan: data.plan ?? null,
  };
  return sendTry(PlanArtifact, command, data.step, timings.planTimeoutMs);
}

export function generateArtifact(run: RunIdentity, data: DataAt<'generating'>, timings: ArtifactJobTimings): Effect {
  const command: MessageData<typeof GenerateArtifact> = {
    runId: run.id,
    artifactType: data.request.artifact_type,
    content: data.request.content,
    options: data.request.options,
    chunks: workerChunks(data),
    plan: data.plan,
    generation: data.generation,
    previousError: data.validationError,
  };
  return sendTry(GenerateArtifact, command, data.step, timings.generateTimeoutMs);
}

export function validateArtifact(run: RunIdentity, data: DataAt<'validating'>, timings: ArtifactJobTimings): Effect {
  const command: MessageData<typeof ValidateArtifact> = {
    runId: run.id,
    artifactType: data.request.artifact_type,
    options: data.request.options,
    generation: data.generation,
    result: data.result,
    chunks: workerChunks(data),
  };
  return sendTry(ValidateArtifact, command, data.step, timings.validateTimeoutMs);
}

/** The command of a retried step's next try. */
export function retriedCommand(run: RunIdentity, data: RetriedData, timings: ArtifactJobTimings): Effect {
  if (data.stage === 'planning') return planArtifact(run, data, timings);
  return data.stage === 'generating' ? generateArtifact(run, data, timings) : validateArtifact(run, data, timings);
}

export type RetriedStep = PlanStep | GenerateStep | ValidateStep;
