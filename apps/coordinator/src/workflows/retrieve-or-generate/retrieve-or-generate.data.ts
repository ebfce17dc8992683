import {
  type mediaRejectionReason,
  type MessageData,
  type ProblemSignature,
  type RetrievalHit,
  retrieveOrGenerateStartInput,
  type solveErrorCode,
  type solutionProvenance,
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
  | 'deadline_exceeded';

export type StepName = 'ingest' | 'retrieve' | 'register' | 'index';

export interface RetrieveOrGenerateData {
  readonly request: RetrieveOrGenerateStart;
  /** Resolved once per attempt, before anything else, and logged as `policy_applied`; again when ingestion tags the content sensitive. */
  readonly policy: ExecutionPolicy;
  /** The request's, or `sensitive` once ingestion tagged the content so. */
  readonly contentSensitivity?: RetrieveOrGenerateStart['contentSensitivity'];
  readonly startedAt: string | null;
  /** The command step in progress; null before the start and while the solve child run works. */
  readonly step: StepProgress<StepName> | null;
  readonly signature: ProblemSignature | null;
  readonly mediaType: 'text' | 'image' | null;
  /** Retrieval's best candidate below the bar, for the near-miss rule. */
  readonly topCandidate: Candidate | null;
  /** Spec 01's idempotency key (signature + user + intent), claimed once ingestion computed the signature (ADR 0016). */
  readonly problemKey?: string | null;
  /** The earlier run holding `problemKey` this run waits for, while it does. */
  readonly waitingForRunId?: string | null;
  /** The earlier run (same user, signature and intent) whose result this run answered with. */
  readonly cachedFrom?: string | null;
  readonly solveRunId: string | null;
  readonly solution: { readonly storageKey: string; readonly contentSha256: string; readonly provenance: Provenance } | null;
  /** REGISTERING needs both registry events, in either order. */
  readonly problemRegistered: { readonly problemId: string; readonly created: boolean } | null;
  readonly assetVersionCreated: { readonly assetVersionId: string; readonly problemId: string; readonly version: number } | null;
  readonly result: {
    readonly outcome: 'hit' | 'new';
    readonly assetVersionId: string;
    readonly isApproximate: boolean;
    readonly videoPending: boolean;
    readonly indexDeferred: boolean;
  } | null;
  readonly costUsd: number;
  readonly errorCode: RetrieveOrGenerateErrorCode | null;
}

export interface RetrieveOrGenerateOptions {
  readonly policy?: PolicyConfig;
  readonly timings?: WorkflowTimings;
}

export function required<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`invariant: ${what} is not known yet`);
  return value;
}
