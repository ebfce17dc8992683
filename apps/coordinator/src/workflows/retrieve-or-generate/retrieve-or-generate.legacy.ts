import type { ProblemSignature } from '@openpaw/contracts';
import type { StepProgress } from '@openpaw/saga';
import type { ExecutionPolicy } from '../policy/index.js';
import { problemKeyOf } from './problem-key.js';
import type {
  AssetVersion,
  Candidate,
  Ingested,
  ProblemRecord,
  RetrieveOrGenerateData,
  RetrieveOrGenerateErrorCode,
  RetrieveOrGenerateStart,
  RunFacts,
  RunResult,
  Solution,
  StepName,
} from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

/**
 * The tolerant reader of runs stored by the definition before the per-stage data (one flat record of
 * nullable fields checked with `required()`). Such a run loads as the stage its state and fields
 * say, and continues: its step's name and tries are kept, so a reply to its command in flight, that
 * command's timeout and its backoff timer are recognised as they are. Its data is written in the new
 * shape at its next change.
 */

/** The data of a `retrieve_or_generate` run as the previous definition stored it. */
export interface LegacyRetrieveOrGenerateData {
  readonly request: RetrieveOrGenerateStart;
  readonly policy: ExecutionPolicy;
  readonly contentSensitivity?: RetrieveOrGenerateStart['contentSensitivity'];
  readonly startedAt: string | null;
  readonly step: StepProgress<StepName> | null;
  readonly signature: ProblemSignature | null;
  readonly mediaType: 'text' | 'image' | null;
  readonly topCandidate: Candidate | null;
  /** Absent in runs stored before spec 01's key claim (ADR 0016). */
  readonly problemKey?: string | null;
  readonly waitingForRunId?: string | null;
  readonly cachedFrom?: string | null;
  readonly solveRunId: string | null;
  readonly solution: Solution | null;
  readonly problemRegistered: ProblemRecord | null;
  readonly assetVersionCreated: AssetVersion | null;
  readonly result: RunResult | null;
  readonly costUsd: number;
  readonly errorCode: RetrieveOrGenerateErrorCode | null;
}

interface StoredRun {
  readonly state: RetrieveOrGenerateState;
  readonly userId: string;
  readonly data: unknown;
}

function isCurrent(stored: unknown): stored is RetrieveOrGenerateData {
  return typeof stored === 'object' && stored !== null && 'stage' in stored;
}

/** The run's data in the current shape, whichever definition stored it. */
export function currentData(run: StoredRun): RetrieveOrGenerateData {
  return isCurrent(run.data) ? run.data : fromLegacy(run.state, run.userId, run.data as LegacyRetrieveOrGenerateData);
}

// Over 60 lines only as one case per state, each a few lines.
export function fromLegacy(state: RetrieveOrGenerateState, userId: string, old: LegacyRetrieveOrGenerateData): RetrieveOrGenerateData {
  const facts: RunFacts = {
    request: old.request,
    policy: old.policy,
    ...(old.contentSensitivity === undefined ? {} : { contentSensitivity: old.contentSensitivity }),
    costUsd: old.costUsd,
  };
  const startedAt = (): string => known(old.startedAt, state, 'startedAt');
  const ingested = (): RunFacts & { readonly startedAt: string } & Ingested => ({
    ...facts,
    startedAt: startedAt(),
    signature: known(old.signature, state, 'signature'),
    mediaType: known(old.mediaType, state, 'mediaType'),
  });
  switch (state) {
    case 'INITIATED':
      return { ...facts, stage: 'created' };
    case 'INGESTING':
      return { ...facts, startedAt: startedAt(), stage: 'ingesting', step: stepOf(old, 'ingest', state) };
    case 'AWAITING_READING_CONFIRMATION':
      // The state came after the flat shape: no run of that shape is in it.
      throw new Error(`a ${state} run stored in the legacy (flat) shape cannot exist`);
    case 'RETRIEVING': {
      if (old.step !== null) return { ...ingested(), stage: 'searching', step: stepOf(old, 'retrieve', state) };
      // Claiming spec 01's key; a run stored before the claim existed never waits here, but its key is its signature's.
      const problemKey = old.problemKey ?? problemKeyOf(known(old.signature, state, 'signature'), userId, old.request.intent);
      return { ...ingested(), stage: 'claiming', problemKey, ...(old.waitingForRunId == null ? {} : { waitingForRunId: old.waitingForRunId }) };
    }
    case 'GENERATING_SOLUTION':
      return { ...ingested(), stage: 'generating', topCandidate: old.topCandidate, solveRunId: known(old.solveRunId, state, 'solveRunId') };
    case 'REGISTERING':
      return {
        ...ingested(),
        stage: 'registering',
        solution: known(old.solution, state, 'solution'),
        step: stepOf(old, 'register', state),
        problemRegistered: old.problemRegistered,
        assetVersionCreated: old.assetVersionCreated,
      };
    case 'INDEXING':
      return {
        ...ingested(),
        stage: 'indexing',
        solution: known(old.solution, state, 'solution'),
        step: stepOf(old, 'index', state),
        problemRegistered: known(old.problemRegistered, state, 'problemRegistered'),
        assetVersionCreated: known(old.assetVersionCreated, state, 'assetVersionCreated'),
      };
    case 'SUCCEEDED':
      return { ...ingested(), stage: 'succeeded', result: known(old.result, state, 'result'), ...(old.cachedFrom == null ? {} : { cachedFrom: old.cachedFrom }) };
    case 'FAILED':
      return {
        ...facts,
        startedAt: startedAt(),
        ...(old.signature === null || old.mediaType === null ? {} : { signature: old.signature, mediaType: old.mediaType }),
        ...(old.solution === null ? {} : { solution: old.solution }),
        stage: 'failed',
        errorCode: known(old.errorCode, state, 'errorCode'),
      };
    case 'CANCELLED':
      // Cancelled runs kept the data of the state they were cancelled in (at most GENERATING_SOLUTION).
      return fromLegacy(cancelledIn(old), userId, old);
  }
}

/** The state a cancelled run's data was written in, by what it had got to. */
function cancelledIn(old: LegacyRetrieveOrGenerateData): RetrieveOrGenerateState {
  if (old.solveRunId !== null) return 'GENERATING_SOLUTION';
  if (old.signature !== null) return 'RETRIEVING';
  return old.startedAt === null ? 'INITIATED' : 'INGESTING';
}

function stepOf<N extends StepName>(old: LegacyRetrieveOrGenerateData, name: N, state: RetrieveOrGenerateState): StepProgress<N> {
  const step = old.step;
  if (step?.name !== name) throw new Error(`stored retrieve_or_generate data in ${state} has no ${name} step`);
  return { name, tries: step.tries, waiting: step.waiting };
}

function known<T>(value: T | null, state: RetrieveOrGenerateState, field: string): T {
  if (value === null) throw new Error(`stored retrieve_or_generate data in ${state} has no ${field}`);
  return value;
}
