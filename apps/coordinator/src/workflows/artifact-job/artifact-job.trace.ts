import type { ArtifactJobInput, ArtifactPlan, ArtifactType } from '@openpaw/contracts';
import type { StepLogEntry } from '@openpaw/saga';
import { PROGRESS, type Snapshot } from './artifact-job.data.js';
import { itemCount, line, shortFingerprint, statusLine } from './lifecycle-log.js';

/** The lines of spec 02's lifecycle trace each transition writes to the step log (see lifecycle-log.ts). */

const chunkCount = (n: number): string => `${n} ${n === 1 ? 'chunk' : 'chunks'}`;
const sourceCount = (n: number): string => `${n} ${n === 1 ? 'source' : 'sources'}`;
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export function jobCreated(runId: string, request: ArtifactJobInput): StepLogEntry[] {
  return [
    line('intent_classified', `Intent classified: artifact (${request.artifact_type})`, { router: request.intent.router, reason: request.intent.reason }),
    line('fingerprint', `Fingerprint: ${shortFingerprint(request.fingerprint)}`, { fingerprint: request.fingerprint, sequence: request.sequence }),
    line('job_created', `✓ Created job: ${runId}`),
    statusLine('pending', PROGRESS.pending),
  ];
}

export function snapshotCaptured(snapshot: Snapshot): StepLogEntry {
  if (snapshot === null) {
    return line('snapshot_captured', 'Retrieval snapshot: none (the notebook has no sources); the job content is the only chunk', { chunks: 0 });
  }
  const sources = new Set(snapshot.chunks.map((c) => c.source_id)).size;
  return line(
    'snapshot_captured',
    `Retrieval snapshot captured: ${chunkCount(snapshot.chunks.length)} from ${sourceCount(sources)} (embedding ${snapshot.embedding_version})`,
    { chunks: snapshot.chunks.length, chunk_ids: snapshot.chunks.map((c) => c.chunk_id), embedding_version: snapshot.embedding_version, captured_at: snapshot.captured_at },
  );
}

export function workerFetched(runId: string, type: ArtifactType, retries: number, chunks: number, fromSnapshot: boolean): StepLogEntry[] {
  const retry = retries > 0 ? ` (retry ${retries})` : '';
  return [
    line('worker_fetched', `Worker fetched job: ${runId}${retry}`, { retry: retries }),
    statusLine('planning', PROGRESS.planning),
    line('phase_started', `Phase 1: Planning ${type} structure...`, { phase: 1 }),
    line('snapshot_loaded', `→ Loaded ${chunkCount(chunks)} from snapshot`, { chunks, from_snapshot: fromSnapshot }),
  ];
}

export function planned(type: ArtifactType, plan: ArtifactPlan, reused: boolean, model: string): StepLogEntry[] {
  return [
    reused
      ? line('plan_reused', '→ Stored plan loaded from the job (not recomputed)', { reused: true })
      : line('llm_call_complete', '→ LLM planning call complete', { phase: 'planning', model }),
    line('plan_created', `✓ Plan ${reused ? 'reused' : 'created'}: ${plan.concepts.length} concepts`, { concepts: plan.concepts, reused }),
    statusLine('planning', PROGRESS.planned),
    line('phase_started', `Phase 2: Generating ${type} content...`, { phase: 2 }),
    statusLine('generating', PROGRESS.planned),
  ];
}

export function generated(type: ArtifactType, generation: number, items: number, model: string): StepLogEntry[] {
  return [
    line('llm_call_complete', '→ LLM generation call complete', { phase: 'generating', model, generation }),
    line('artifact_generated', `✓ Generated artifact: ${itemCount(type, items)}`, { items }),
    statusLine('generating', PROGRESS.generated),
    line('phase_started', `✅ Phase 3: Validating ${type}...`, { phase: 3 }),
    statusLine('validating', PROGRESS.generated),
  ];
}

export function progressed(detail: string, progress: number): StepLogEntry {
  return line('progress', `→ ${detail} (${progress}%)`, { progress });
}

/** "Checking structure (90%)", when the validator did not report it before answering. */
export function checkedStructure(progress: number): StepLogEntry[] {
  return progress < PROGRESS.checking ? [progressed('Checking structure', PROGRESS.checking)] : [];
}

export function validationPassed(runId: string, generation: number): StepLogEntry[] {
  return [
    line('validation_passed', '✓ Validation passed', { generation }),
    statusLine('completed', PROGRESS.completed),
    line('job_completed', `✅ Job ${runId} completed successfully`),
  ];
}

export function validationFailed(error: string, errors: readonly string[], generation: number): StepLogEntry {
  return line('validation_failed', `✗ Validation failed: ${error}`, { error, errors: [...errors], generation });
}

export function retryQueued(retry: number, maxRetries: number, delayMs: number): StepLogEntry[] {
  return [line('retry_queued', `→ Retry ${retry}/${maxRetries} queued`, { retry, delay_ms: delayMs }), statusLine('pending', PROGRESS.pending)];
}

export const validationFailedAfterRetries = (retries: number, error: string): string =>
  `validation failed after ${retries} ${retries === 1 ? 'retry' : 'retries'}: ${error}`;

export function jobFailed(runId: string, reason: string): StepLogEntry {
  return line('job_failed', `✗ Job ${runId} failed: ${reason}`, { error: reason });
}

export function stepFailed(phase: string, kind: string, tries: number, reason: string): StepLogEntry {
  return line('step_failed', `✗ ${phase} failed after ${plural(tries, 'try', 'tries')}: ${reason}`, { step: kind, tries, reason });
}

/** A try failed transiently: the next one after a backoff (payload: libs/saga's `retry_scheduled` fields). */
export function retryScheduled(phase: string, reason: string, nextTry: number, maxTries: number, payload: Record<string, unknown>): StepLogEntry {
  const delayMs = payload['backoff_ms'];
  return line('retry_scheduled', `→ ${phase} failed (${reason}); try ${nextTry}/${maxTries} in ${String(delayMs)} ms`, payload);
}

export function stepRetried(phase: string, kind: string, tryNo: number, maxTries: number): StepLogEntry {
  return line('step_retried', `→ ${phase}: try ${tryNo}/${maxTries}`, { step: kind, try: tryNo });
}
