import {
  type ArtifactJobInput,
  type ArtifactJobStatus,
  type ArtifactPlan,
  type ArtifactResult,
  REQUEST_CHUNK_ID,
  type RetrievalSnapshot,
  type SnapshotChunk,
} from '@openpaw/contracts';
import type { StepProgress } from '@openpaw/saga';

/** Spec 02's job states, the run's state names (stored: never rename one). */
export const ARTIFACT_JOB_STATES = ['pending', 'planning', 'generating', 'validating', 'completed', 'failed'] as const satisfies readonly ArtifactJobStatus[];
export type ArtifactJobState = ArtifactJobStatus;

/** Spec 02's lifecycle as a transition table: the definition's, derived from its rows, must equal it. */
export const ARTIFACT_JOB_TRANSITIONS = {
  pending: ['planning', 'failed'],
  planning: ['generating', 'failed'],
  // → pending: output that misses the artifact's schema is a validation failure, re-queued once.
  generating: ['validating', 'pending', 'failed'],
  validating: ['completed', 'pending', 'failed'],
} as const satisfies Partial<Record<ArtifactJobState, readonly ArtifactJobState[]>>;

/** Validation failures retry once from `pending` with the same plan and snapshot (spec 02). */
export const MAX_VALIDATION_RETRIES = 1;

/** Progress per point of the pipeline (spec 02: 0 → 20 → 60 → 90 → 100). */
export const PROGRESS = { pending: 0, planning: 0, planned: 20, generated: 60, checking: 90, completed: 100 } as const;

/**
 * The timer a validation failure sets (spec 02: "Retry 1/1 queued"): when it fires, a worker takes
 * the job again. The workflow's own timer, not a step's backoff.
 */
export const RETRY_TIMER = 'retry';

/** The job's command steps. Plan, generate and validate run once per generation, so their step names carry it. */
export type StepKind = 'snapshot' | 'plan' | 'generate' | 'validate';
export type PlanStep = `plan:${number}`;
export type GenerateStep = `generate:${number}`;
export type ValidateStep = `validate:${number}`;

export const planStep = (generation: number): PlanStep => `plan:${generation}`;
export const generateStep = (generation: number): GenerateStep => `generate:${generation}`;
export const validateStep = (generation: number): ValidateStep => `validate:${generation}`;

/** The phase a step is named by in errors and the trace. */
export const PHASE: Readonly<Record<StepKind, string>> = { snapshot: 'snapshot capture', plan: 'planning', generate: 'generating', validate: 'validating' };

/**
 * How a step in flight when its run was stored by the definition before the table idiom is still
 * recognised (see artifact-job.legacy.ts): that definition keyed a step's first try `plan:1` (now
 * `plan:1:1`) and named its backoff timer `retry:plan`.
 */
export interface LegacyStepIds {
  /** The first try's key, when its reply (or timeout) was awaited. */
  readonly firstTryKey?: string;
  /** The backoff timer, when the step waited for it; its payload's `tries` is the try it starts. */
  readonly backoffTimer?: string;
}

/** A command step in flight. */
export interface Awaiting<N extends string> {
  readonly step: StepProgress<N>;
  readonly legacy?: LegacyStepIds;
}

/** What a job knows at every stage. */
export interface JobFacts {
  readonly request: ArtifactJobInput;
  readonly progress: number;
  /** Generation in progress: 1, or 2 on the validation retry. */
  readonly generation: number;
  /** Validation retries used (at most MAX_VALIDATION_RETRIES). */
  readonly retries: number;
  readonly planComputations: number;
  /** The validation failure that re-queued the job: sent to the generator on the retry (`previousError`), shown as `validation_error` unless the job completes. */
  readonly validationError: string | null;
}

/** The retrieval snapshot, once captured: `null` when the notebook had no sources (the request content is then the only chunk). */
export type Snapshot = RetrievalSnapshot | null;

/** Once captured, the snapshot is the job's for good (spec 02: chunks stay the same for all retries). */
interface Captured {
  readonly snapshot: Snapshot;
}

/**
 * The run's data, per stage (`pending` has two: capturing the snapshot, or queued for the
 * validation retry). Each stage holds what is known there, so nothing needs a "not known yet" check.
 */
export type ArtifactJobData =
  /** pending, before the start input (applied in the same transaction as `init`). */
  | (JobFacts & { readonly stage: 'created' })
  /** pending: the artifacts service captures the snapshot. */
  | (JobFacts & Awaiting<'snapshot'> & { readonly stage: 'capturing' })
  /** pending: a validation failure re-queued the job; the retry timer hands it to a worker. */
  | (JobFacts & Captured & { readonly stage: 'queued'; readonly plan: ArtifactPlan })
  /** planning; `plan` is the stored plan the planner reuses on the retry. */
  | (JobFacts & Captured & Awaiting<PlanStep> & { readonly stage: 'planning'; readonly plan?: ArtifactPlan })
  | (JobFacts & Captured & Awaiting<GenerateStep> & { readonly stage: 'generating'; readonly plan: ArtifactPlan })
  | (JobFacts & Captured & Awaiting<ValidateStep> & { readonly stage: 'validating'; readonly plan: ArtifactPlan; readonly result: ArtifactResult })
  | (JobFacts & Captured & { readonly stage: 'completed'; readonly plan: ArtifactPlan; readonly result: ArtifactResult })
  /** failed, from any stage: whatever it had got to (no snapshot if it failed capturing it, no plan before planning). */
  | (JobFacts & Partial<Captured> & { readonly stage: 'failed'; readonly plan?: ArtifactPlan; readonly error: string });

export type Stage = ArtifactJobData['stage'];
export type DataAt<K extends Stage> = Extract<ArtifactJobData, { readonly stage: K }>;

/** A stage awaiting a worker's try that a transient failure retries (plan, generate, validate; the snapshot capture is not retried). */
export type RetriedData = DataAt<'planning'> | DataAt<'generating'> | DataAt<'validating'>;

/** The step kind of a retried stage. */
export function retriedKindOf(data: RetriedData): 'plan' | 'generate' | 'validate' {
  return data.stage === 'planning' ? 'plan' : data.stage === 'generating' ? 'generate' : 'validate';
}

/** What the worker may use: the snapshot's chunks, or the request's content when there was nothing to retrieve. */
export function workerChunks(data: JobFacts & Captured): SnapshotChunk[] {
  const chunks = data.snapshot?.chunks ?? [];
  return chunks.length > 0 ? chunks : [{ chunk_id: REQUEST_CHUNK_ID, source_id: REQUEST_CHUNK_ID, text: data.request.content }];
}

/** The facts alone, for the next stage to build on (drops the stage's own fields). */
export function factsOf(data: JobFacts): JobFacts {
  const { request, progress, generation, retries, planComputations, validationError } = data;
  return { request, progress, generation, retries, planComputations, validationError };
}
