import type { ArtifactJobInput, ArtifactPlan, ArtifactResult, RetrievalSnapshot } from '@openpaw/contracts';
import type { StepProgress } from '@openpaw/saga';
import type { ArtifactJobData, ArtifactJobState, Awaiting, JobFacts, StepKind } from './artifact-job.data.js';
import { legacyBackoffTimer } from './artifact-job.replies.js';

/**
 * The tolerant reader of runs stored by the definition before the table idiom (one flat record of
 * nullable fields, the awaited command in `awaiting`, engine resends). Such a run loads as the
 * stage its state and fields say, and continues: a reply to its command in flight, that command's
 * timeout and its backoff timer are still recognised (their ids and names are the old ones, see
 * `LegacyStepIds`). Its data is written in the new shape at its next change.
 */

/** The data of an `artifact_job` run as the previous definition stored it. */
export interface LegacyArtifactJobData {
  readonly request: ArtifactJobInput;
  readonly progress: number;
  readonly snapshot: RetrievalSnapshot | null;
  readonly snapshotCaptured: boolean;
  readonly plan: ArtifactPlan | null;
  readonly planComputations: number;
  readonly generation: number;
  /** Tries of the plan or generate step in progress; while in backoff, the try the timer starts. */
  readonly stepTries: number;
  readonly retries: number;
  /** Key of the command whose reply was awaited (`snapshot`, `plan:1`, `plan:1:2`, `validate:1`); null while none was. */
  readonly awaiting: string | null;
  readonly result: ArtifactResult | null;
  readonly validationError: string | null;
  readonly error: string | null;
}

function isCurrent(stored: unknown): stored is ArtifactJobData {
  return typeof stored === 'object' && stored !== null && 'stage' in stored;
}

/** The run's data in the current shape, whichever definition stored it. */
export function currentData(state: ArtifactJobState, stored: unknown): ArtifactJobData {
  return isCurrent(stored) ? stored : fromLegacy(state, stored as LegacyArtifactJobData);
}

export function fromLegacy(state: ArtifactJobState, old: LegacyArtifactJobData): ArtifactJobData {
  const facts: JobFacts = {
    request: old.request,
    progress: old.progress,
    generation: old.generation,
    retries: old.retries,
    planComputations: old.planComputations,
    validationError: old.validationError,
  };
  const snapshot = old.snapshot;
  const plan = (): ArtifactPlan => known(old.plan, state, 'plan');
  const result = (): ArtifactResult => known(old.result, state, 'result');
  switch (state) {
    case 'pending':
      return old.snapshotCaptured
        ? { ...facts, stage: 'queued', snapshot, plan: plan() }
        : { ...facts, stage: 'capturing', step: { name: 'snapshot', tries: 1, waiting: 'reply' }, legacy: { firstTryKey: old.awaiting ?? 'snapshot' } };
    case 'planning':
      return { ...facts, stage: 'planning', snapshot, ...(old.plan === null ? {} : { plan: old.plan }), ...legacyStep('plan', old) };
    case 'generating':
      return { ...facts, stage: 'generating', snapshot, plan: plan(), ...legacyStep('generate', old) };
    case 'validating':
      return { ...facts, stage: 'validating', snapshot, plan: plan(), result: result(), ...legacyStep('validate', old) };
    case 'completed':
      return { ...facts, stage: 'completed', snapshot, plan: plan(), result: result() };
    case 'failed':
      return {
        ...facts,
        ...(old.snapshotCaptured ? { snapshot } : {}),
        ...(old.plan === null ? {} : { plan: old.plan }),
        stage: 'failed',
        error: old.error ?? 'failed',
      };
  }
}

/**
 * The step in progress: awaiting `plan:1` is the first try (now keyed `plan:1:1`), `plan:1:2` a
 * later one (keyed as now); nothing awaited means the backoff timer `retry:plan` was pending.
 */
function legacyStep<K extends Exclude<StepKind, 'snapshot'>>(kind: K, old: LegacyArtifactJobData): Awaiting<`${K}:${number}`> {
  type N = `${K}:${number}`;
  const name: N = `${kind}:${old.generation}`;
  if (old.awaiting === null) {
    const step: StepProgress<N> = { name, tries: old.stepTries - 1, waiting: 'backoff' };
    return { step, legacy: { backoffTimer: legacyBackoffTimer(kind) } };
  }
  const [, generation, tryNo] = old.awaiting.split(':');
  const awaitedName: N = `${kind}:${Number(generation ?? old.generation)}`;
  if (tryNo !== undefined) return { step: { name: awaitedName, tries: Number(tryNo), waiting: 'reply' } };
  return { step: { name: awaitedName, tries: 1, waiting: 'reply' }, legacy: { firstTryKey: old.awaiting } };
}

function known<T>(value: T | null, state: ArtifactJobState, field: string): T {
  if (value === null) throw new Error(`stored artifact_job data in ${state} has no ${field}`);
  return value;
}
