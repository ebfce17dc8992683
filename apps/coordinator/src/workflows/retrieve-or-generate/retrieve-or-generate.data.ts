import {
  type mediaRejectionReason,
  type MessageData,
  type ProblemSignature,
  type RetrievalHit,
  retrieveOrGenerateStartInput,
  type solveErrorCode,
  type solutionProvenance,
  type UncertainReading,
} from '@openpaw/contracts';
import type { StepProgress } from '@openpaw/saga';
import type { z } from 'zod';
import type { ExecutionPolicy, PolicyConfig } from '../policy/index.js';
import type { WorkflowTimings } from '../shared/timings.js';

export const retrieveOrGenerateStartSchema = retrieveOrGenerateStartInput;
/** The start input as the gateway sends it (tier and sensitivity optional). */
export type RetrieveOrGenerateStartInput = z.input<typeof retrieveOrGenerateStartSchema>;
export type RetrieveOrGenerateStart = z.output<typeof retrieveOrGenerateStartSchema>;

export type Candidate = MessageData<typeof RetrievalHit>['candidate'];
type Provenance = z.infer<typeof solutionProvenance>;

export type RetrieveOrGenerateErrorCode =
  | z.infer<typeof mediaRejectionReason>
  | z.infer<typeof solveErrorCode>
  | 'ingest_timeout'
  | 'retrieval_timeout'
  | 'registration_timeout'
  | 'solve_failed'
  | 'solve_cancelled'
  | 'invalid_solve_result'
  | 'deadline_exceeded'
  | 'reading_not_confirmed';

export type StepName = 'ingest' | 'retrieve' | 'register' | 'index';

export interface RetrieveOrGenerateOptions {
  readonly policy?: PolicyConfig;
  readonly timings?: WorkflowTimings;
}

/** What a run knows at every stage. */
export interface RunFacts {
  readonly request: RetrieveOrGenerateStart;
  /** Resolved once per attempt, before anything else, and logged as `policy_applied`; again when ingestion tags the content sensitive. */
  readonly policy: ExecutionPolicy;
  /** Set when ingestion tagged the content sensitive (the policy was resolved again for it). */
  readonly contentSensitivity?: RetrieveOrGenerateStart['contentSensitivity'];
  /** What the solve child run spent. */
  readonly costUsd: number;
  /** An image whose reading ingestion did not trust: the reading, its doubts and, once its owner answered, the text solved. */
  readonly reading?: ReadingCheck;
  /**
   * Retrieval found this problem stored in other names (issue 24): the stored asset and the bijection
   * (stored name → asker's name). The stored solution is never served in the wrong names: the solve run
   * renders it again in the asker's, and when the maths engine does that (a structured, checked solution),
   * the run's outcome is a hit.
   */
  readonly renamedHit?: RenamedHit;
}

export interface RenamedHit {
  readonly assetVersionId: string;
  readonly relabel: NonNullable<Candidate['relabel']>;
}

/** Read → confirm → solve (issue 25): the uncertain reading and its owner's answer. */
export interface ReadingCheck extends UncertainReading {
  /** How its owner answered: the reading confirmed as read, or the text corrected. */
  readonly answer?: { readonly kind: 'confirmed' | 'corrected'; readonly text: string };
}

/** From the start on. */
interface Started {
  readonly startedAt: string;
}

/** Ingestion's answer, known from RETRIEVING on. */
export interface Ingested {
  readonly signature: ProblemSignature;
  readonly mediaType: 'text' | 'image';
}

export interface Solution {
  readonly storageKey: string;
  readonly contentSha256: string;
  readonly provenance: Provenance;
}

/** The solve child run's solution, known from REGISTERING on. */
interface Generated {
  readonly solution: Solution;
}

export interface ProblemRecord {
  readonly problemId: string;
  readonly created: boolean;
}

export interface AssetVersion {
  readonly assetVersionId: string;
  readonly problemId: string;
  readonly version: number;
}

/** The command step in progress (libs/saga's step idiom). */
interface Awaiting<N extends StepName> {
  readonly step: StepProgress<N>;
}

export interface RunResult {
  readonly outcome: 'hit' | 'new';
  readonly assetVersionId: string;
  readonly isApproximate: boolean;
  readonly videoPending: boolean;
  readonly indexDeferred: boolean;
}

/**
 * The run's data, per stage: each stage holds exactly what is known there, so no handler checks
 * for a field "not known yet". RETRIEVING has two stages (claiming spec 01's key, then searching).
 * A CANCELLED run keeps the data of the stage it was cancelled in. Stored: a change of shape needs a
 * reader of the old one (retrieve-or-generate.legacy.ts).
 */
export type RetrieveOrGenerateData =
  /** INITIATED: the request and its policy (the start input is applied in the same transaction as `init`). */
  | (RunFacts & { readonly stage: 'created' })
  /** INGESTING: ingestion normalises the submission (the confirmed or corrected reading, as text, once its owner answered). */
  | (RunFacts & Started & Awaiting<'ingest'> & { readonly stage: 'ingesting' })
  /** AWAITING_READING_CONFIRMATION: the image's reading was not trusted; its owner confirms or corrects it. */
  | (RunFacts &
      Started & {
        readonly stage: 'confirming';
        readonly reading: ReadingCheck;
        /**
         * The ingest step's tries before the reading was doubted: the answer is ingested as the next try, so
         * its command has an id of its own (the first try's id again is dropped as a duplicate by JetStream
         * and answered from ingestion's kept reply: the run waited for the step's resend, ~30 s). Absent in
         * runs that started waiting before it was kept: 1.
         */
        readonly ingestTries?: number;
      })
  /**
   * RETRIEVING, before the search: spec 01's key (signature + user + intent) is claimed (ADR 0016);
   * `waitingForRunId` is the earlier run holding it, while this one waits for it.
   */
  | (RunFacts & Started & Ingested & { readonly stage: 'claiming'; readonly problemKey: string; readonly waitingForRunId?: string })
  /** RETRIEVING: the key is this run's; retrieval searches. */
  | (RunFacts & Started & Ingested & Awaiting<'retrieve'> & { readonly stage: 'searching' })
  /** GENERATING_SOLUTION: the solve child run works; retrieval's best candidate (below the bar) is kept for the near-miss rule. */
  | (RunFacts & Started & Ingested & { readonly stage: 'generating'; readonly topCandidate: Candidate | null; readonly solveRunId: string })
  /** REGISTERING: both registry events are needed, in either order. */
  | (RunFacts &
      Started &
      Ingested &
      Generated &
      Awaiting<'register'> & { readonly stage: 'registering'; readonly problemRegistered: ProblemRecord | null; readonly assetVersionCreated: AssetVersion | null })
  /** INDEXING: registered; retrieval indexes the asset version. */
  | (RunFacts & Started & Ingested & Generated & Awaiting<'index'> & { readonly stage: 'indexing'; readonly problemRegistered: ProblemRecord; readonly assetVersionCreated: AssetVersion })
  /** SUCCEEDED; `cachedFrom` is the earlier run (same user, signature and intent) whose result this run answered with. */
  | (RunFacts & Started & Ingested & { readonly stage: 'succeeded'; readonly result: RunResult; readonly cachedFrom?: string })
  /** FAILED, from any running stage: whatever it had got to (a generated solution is kept, in the data and its blob). */
  | (RunFacts & Started & Partial<Ingested> & Partial<Generated> & { readonly stage: 'failed'; readonly errorCode: RetrieveOrGenerateErrorCode });

export type Stage = RetrieveOrGenerateData['stage'];
export type DataAt<K extends Stage> = Extract<RetrieveOrGenerateData, { readonly stage: K }>;
/** The stages of a run still going, after its start. */
export type RunningData = DataAt<'ingesting' | 'confirming' | 'claiming' | 'searching' | 'generating' | 'registering' | 'indexing'>;
/** The stages waiting for a command step's reply or backoff. */
export type StepData = Extract<RetrieveOrGenerateData, { readonly step: StepProgress }>;

const RUNNING_STAGES: readonly Stage[] = ['ingesting', 'confirming', 'claiming', 'searching', 'generating', 'registering', 'indexing'];

export function isRunning(data: RetrieveOrGenerateData): data is RunningData {
  return RUNNING_STAGES.includes(data.stage);
}

/** The facts alone, for the next stage to build on (drops the stage's own fields). */
export function factsOf(data: RunFacts): RunFacts {
  const { request, policy, contentSensitivity, costUsd, reading, renamedHit } = data;
  return {
    request,
    policy,
    ...(contentSensitivity === undefined ? {} : { contentSensitivity }),
    costUsd,
    ...(reading === undefined ? {} : { reading }),
    ...(renamedHit === undefined ? {} : { renamedHit }),
  };
}

/** The facts and everything known since ingestion. */
export function ingestedOf(data: RunFacts & Started & Ingested): RunFacts & Started & Ingested {
  return { ...factsOf(data), startedAt: data.startedAt, signature: data.signature, mediaType: data.mediaType };
}
