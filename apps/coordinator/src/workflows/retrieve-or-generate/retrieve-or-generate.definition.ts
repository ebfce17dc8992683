import {
  AssetVersionCreated,
  DocumentIndexed,
  IndexDocument,
  MediaNormalized,
  MediaRejected,
  type mediaRejectionReason,
  type MessageData,
  NormalizeMedia,
  type ProblemSignature,
  ProblemRegistered,
  RegisterSolution,
  RetrievalHit,
  RetrievalMiss,
  retrieveOrGenerateStartInput,
  type RetrieveOrGenerateView,
  SearchSolutions,
  solveErrorCode,
  type solutionProvenance,
} from '@openpaw/contracts';
import {
  type ChildInput,
  type ClaimInput,
  childRunIdFor,
  clearPendingRetry,
  type Decision,
  decideByTable,
  type Effect,
  firstTry,
  isReplyTo,
  isRetryDue,
  isStepTimeout,
  nextTry,
  onChild,
  onClaim,
  onEvent,
  onStart,
  onTimer,
  retriesUsed,
  retryTimerName,
  RUN_DEADLINE_TIMER,
  type RunSnapshot,
  type SagaDefinition,
  scheduleRetry,
  sendTry,
  stepTimeoutInputName,
  type StepLogEntry,
  type StepProgress,
  transitionsOf,
  type WorkflowTable,
} from '@openpaw/saga';
import type { z } from 'zod';
import { DEFAULT_POLICY_CONFIG, type ExecutionPolicy, type PolicyConfig, PolicyEngine } from '../policy/index.js';
import { durationMs, roundUsd, statusOf } from '../shared/run-status.js';
import { type Backoff, DEFAULT_WORKFLOW_TIMINGS, RETRIES, type WorkflowTimings } from '../shared/timings.js';
import { REINDEX_ASSET, RETRIEVE_OR_GENERATE, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import type { ReindexStart } from '../reindex-asset/reindex-asset.definition.js';
import { type SolveStart, solveViewSchema } from '../solve/solve-workflow.definition.js';
import type { VideoStart } from '../video/video-workflow.definition.js';
import { earlierResultSchema, problemKeyOf } from './problem-key.js';

/**
 * RetrieveOrGenerateWorkflow (spec 01): ingest a submitted problem, serve an existing solution when
 * retrieval is confident enough, else generate one (solve_workflow child run), register and index it,
 * and enqueue its video in the background. Pure: every I/O is a command to the owning service.
 */
export const RETRIEVE_OR_GENERATE_STATES = [
  'INITIATED',
  'INGESTING',
  'RETRIEVING',
  'GENERATING_SOLUTION',
  'REGISTERING',
  'INDEXING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
] as const;
export type RetrieveOrGenerateState = (typeof RETRIEVE_OR_GENERATE_STATES)[number];
type S = RetrieveOrGenerateState;

/** The spec's TRANSITIONS, verbatim. CANCELLED is reachable only up to GENERATING_SOLUTION (ADR 0001). */
export const SPEC_TRANSITIONS = {
  INITIATED: ['INGESTING', 'CANCELLED'],
  INGESTING: ['RETRIEVING', 'FAILED', 'CANCELLED'],
  RETRIEVING: ['SUCCEEDED', 'GENERATING_SOLUTION', 'FAILED', 'CANCELLED'],
  GENERATING_SOLUTION: ['REGISTERING', 'FAILED', 'CANCELLED'],
  REGISTERING: ['INDEXING', 'FAILED'],
  INDEXING: ['SUCCEEDED', 'FAILED'],
} as const satisfies Partial<Record<S, readonly S[]>>;

/**
 * The table the engine enforces: SPEC_TRANSITIONS plus one edge, GENERATING_SOLUTION → SUCCEEDED.
 * The spec's retry section serves a near-miss (`is_approximate: true`) when solving failed, which is a
 * success reached from GENERATING_SOLUTION, but its TRANSITIONS omit that edge; without it the engine
 * would refuse the near-miss. The edge is used for nothing else.
 */
export const RETRIEVE_OR_GENERATE_TRANSITIONS: Readonly<Partial<Record<S, readonly S[]>>> = {
  ...SPEC_TRANSITIONS,
  GENERATING_SOLUTION: [...SPEC_TRANSITIONS.GENERATING_SOLUTION, 'SUCCEEDED'],
};

/** Spec: after a failed solve, a top candidate with confidence > 0.70 is served as a near-miss. */
export const NEAR_MISS_MIN_CONFIDENCE = 0.7;

export const retrieveOrGenerateStartSchema = retrieveOrGenerateStartInput;
/** The start input as the gateway sends it (tier and sensitivity optional). */
export type RetrieveOrGenerateStartInput = z.input<typeof retrieveOrGenerateStartSchema>;
export type RetrieveOrGenerateStart = z.output<typeof retrieveOrGenerateStartSchema>;

type Candidate = MessageData<typeof RetrievalHit>['candidate'];
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

type StepName = 'ingest' | 'retrieve' | 'register' | 'index';

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

/** WorkflowResult (spec 01 Output), plus the run's state and, once known, a problem signature summary (the contract's schema). */
export type { RetrieveOrGenerateView };

export interface RetrieveOrGenerateOptions {
  readonly policy?: PolicyConfig;
  readonly timings?: WorkflowTimings;
}

type MethodThresholds = NonNullable<MessageData<typeof SearchSolutions>['methodThresholds']>;

/** A run's stored policy, with the per-method bars of runs started before those fields existed filled from the defaults. */
function withMethodBars(stored: ExecutionPolicy): ExecutionPolicy {
  const { defaults } = DEFAULT_POLICY_CONFIG;
  // The fields are typed as required, but a policy stored in a run before they existed lacks them.
  const partial = stored as Partial<ExecutionPolicy> & ExecutionPolicy;
  return {
    ...stored,
    exact_phash_threshold: partial.exact_phash_threshold ?? defaults.exact_phash_threshold,
    near_duplicate_threshold: partial.near_duplicate_threshold ?? defaults.near_duplicate_threshold,
    text_exact_threshold: partial.text_exact_threshold ?? defaults.text_exact_threshold,
    hybrid_threshold_offset: partial.hybrid_threshold_offset ?? defaults.hybrid_threshold_offset,
  };
}

/** The policy's per-method bars (spec 01 "Retrieval Confidence Thresholds (from ExecutionPolicy)"), as SearchSolutions carries them. */
export function methodThresholdsOf(stored: ExecutionPolicy): MethodThresholds {
  const policy = withMethodBars(stored);
  return {
    exactPhash: policy.exact_phash_threshold,
    nearDuplicate: policy.near_duplicate_threshold,
    exactText: policy.text_exact_threshold,
    hybridOffset: policy.hybrid_threshold_offset,
  };
}

/** The confidence a candidate needs to be a hit, by the method that found it (the same bars retrieval applies). */
export function acceptanceBar(method: Candidate['method'], stored: ExecutionPolicy): number {
  const policy = withMethodBars(stored);
  const threshold = policy.retrieval_threshold;
  switch (method) {
    case 'exact_image':
    case 'exact_phash':
      return policy.exact_phash_threshold;
    case 'near_duplicate':
      return policy.near_duplicate_threshold;
    case 'text_exact':
      return policy.text_exact_threshold;
    case 'hybrid':
      return threshold - policy.hybrid_threshold_offset;
    case 'vector':
    case 'maths_signature':
      return threshold;
  }
}

/** Sensitive when the client said so or ingestion tagged it (personal data, exam-paper markers, explicit content). */
export function contentSensitivityOf(request: RetrieveOrGenerateStart, signature: ProblemSignature): RetrieveOrGenerateStart['contentSensitivity'] {
  return request.contentSensitivity === 'sensitive' || signature.contentSensitivity === 'sensitive' ? 'sensitive' : 'standard';
}

/** Guard of INGESTING → RETRIEVING: a signature retrieval can search with (text or an image hash). */
export function signatureComputed(signature: ProblemSignature): boolean {
  return signature.normalizedText.trim() !== '' || signature.imageSha256 !== undefined || signature.phash !== undefined;
}


type Run = RunSnapshot<S, RetrieveOrGenerateData>;
type D = RetrieveOrGenerateData;
type RogDecision = Decision<S, D>;

const ignore = (reason: string): RogDecision => ({ outcome: 'ignore', reason });

function required<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`invariant: ${what} is not known yet`);
  return value;
}

const SOLVE_CHILD_KEY = 'solve';

export function retrieveOrGenerateDefinition(options: RetrieveOrGenerateOptions = {}): SagaDefinition<S, D> {
  const policies = new PolicyEngine(options.policy ?? DEFAULT_POLICY_CONFIG);
  const timings = options.timings ?? DEFAULT_WORKFLOW_TIMINGS;

  /** The command of a step's latest try, rebuilt from the run's data (a retry re-sends the same request). */
  const commandFor = (run: Run, data: D, step: StepProgress<StepName>): Effect => {
    switch (step.name) {
      case 'ingest':
        return sendTry(NormalizeMedia, { runId: run.id, submission: data.request.submission }, step, timings.ingest.timeoutMs);
      case 'retrieve': {
        const search: MessageData<typeof SearchSolutions> = {
          runId: run.id,
          signature: required(data.signature, 'the problem signature'),
          threshold: data.policy.retrieval_threshold,
          methodThresholds: methodThresholdsOf(data.policy),
        };
        return sendTry(SearchSolutions, search, step, timings.retrieve.timeoutMs);
      }
      case 'register': {
        const solution = required(data.solution, 'the solution');
        const register: MessageData<typeof RegisterSolution> = {
          runId: run.id,
          signature: required(data.signature, 'the problem signature'),
          storageKey: solution.storageKey,
          contentSha256: solution.contentSha256,
          provenance: solution.provenance,
        };
        return sendTry(RegisterSolution, register, step, timings.register.timeoutMs);
      }
      case 'index': {
        const version = required(data.assetVersionCreated, 'the asset version');
        const index: MessageData<typeof IndexDocument> = {
          runId: run.id,
          problemId: version.problemId,
          assetVersionId: version.assetVersionId,
          signature: required(data.signature, 'the problem signature'),
        };
        // The run does not wait for the index: on timeout it succeeds and reindexes in the background,
        // so this timeout runs from the send even while retrieval's lane is busy or down.
        return sendTry(IndexDocument, index, step, timings.index.timeoutMs, { timeoutFrom: 'send' });
      }
    }
  };

  /** Leaves the current step for the next state and sends the first try of its command. */
  const enterStep = (run: Run, data: D, to: S, name: StepName, stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
    const step = firstTry(name);
    const next: D = { ...data, step };
    return { outcome: 'transition', to, data: next, step: stepName, logs, effects: [...clearPendingRetry(run.data.step), commandFor(run, next, step)] };
  };

  const fail = (run: Run, data: D, errorCode: RetrieveOrGenerateErrorCode, detail: string, stepName: string): RogDecision => ({
    outcome: 'transition',
    to: 'FAILED',
    data: { ...data, errorCode },
    step: stepName,
    logs: [{ step: 'error_recorded', payload: { error_code: errorCode, detail } }],
  });

  const start = (run: Run, now: Date): RogDecision => {
    const { request, policy } = run.data;
    const data: D = { ...run.data, startedAt: now.toISOString() };
    // Step 0: the policy governs everything after it, so it is logged first.
    const policyApplied: StepLogEntry = {
      step: 'policy_applied',
      payload: {
        policy,
        workflow_type: RETRIEVE_OR_GENERATE,
        subscription_tier: request.subscriptionTier,
        content_sensitivity: request.contentSensitivity,
      },
    };
    const entered = enterStep(run, data, 'INGESTING', 'ingest', 'ingest_requested', [policyApplied]);
    // The run's deadline (flow control): a step queued in a busy lane waits, up to here.
    const deadline: Effect = { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: policy.run_deadline_ms };
    return entered.outcome === 'transition' ? { ...entered, effects: [...(entered.effects ?? []), deadline] } : entered;
  };

  /**
   * INGESTING → RETRIEVING: the signature is known, so the run claims spec 01's key before it
   * searches (the engine answers with a `claim` input in the same transaction).
   */
  const claimProblemKey = (run: Run, data: D, logs: readonly StepLogEntry[] = []): RogDecision => {
    const problemKey = problemKeyOf(required(data.signature, 'the problem signature'), run.userId, data.request.intent);
    return {
      outcome: 'transition',
      to: 'RETRIEVING',
      data: { ...data, step: null, problemKey },
      step: 'media_normalized',
      logs,
      effects: [...clearPendingRetry(run.data.step), { type: 'claimKey', key: problemKey }],
    };
  };

  /**
   * Spec 01, idempotency: the key claimed → retrieve; held by an earlier run that SUCCEEDED → its
   * result, no re-run; held by one still going → wait for it (told again when it ends); the earlier
   * run FAILED or was CANCELLED while this one waited → claim again (the engine hands the key over).
   */
  const onProblemKeyClaim = (run: Run, claim: ClaimInput): RogDecision => {
    if (claim.key !== run.data.problemKey) return ignore('claim of another key');
    if (run.data.step !== null) return ignore('the problem key is already claimed');
    const retrieve = (stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
      const step = firstTry('retrieve');
      const data: D = { ...run.data, step, waitingForRunId: null };
      return { outcome: 'stay', data, step: stepName, logs, effects: [commandFor(run, data, step)] };
    };
    if (claim.outcome === 'claimed') return retrieve('problem_key_claimed');
    const { holder } = claim;
    const earlier = { run_id: holder.runId, state: holder.state, attempt_no: holder.attemptNo };
    if (!holder.terminal) return { outcome: 'stay', data: { ...run.data, waitingForRunId: holder.runId }, step: 'waiting_for_earlier_run', logs: [{ step: 'problem_key_held', payload: earlier }] };
    if (holder.state !== 'SUCCEEDED') {
      return { outcome: 'stay', data: { ...run.data, waitingForRunId: null }, step: 'earlier_run_released_key', logs: [{ step: 'problem_key_held', payload: earlier }], effects: [{ type: 'claimKey', key: claim.key }] };
    }
    const result = earlierResultSchema.safeParse(holder.view);
    if (!result.success) return retrieve('earlier_run_unreadable', [{ step: 'problem_key_held', payload: { ...earlier, problem: result.error.message.slice(0, 500) } }]);
    const { outcome, output } = result.data;
    return {
      outcome: 'transition',
      to: 'SUCCEEDED',
      data: {
        ...run.data,
        waitingForRunId: null,
        cachedFrom: holder.runId,
        result: { outcome, assetVersionId: output.asset_version_id, isApproximate: output.is_approximate ?? false, videoPending: output.video_pending ?? false, indexDeferred: false },
      },
      step: 'answered_from_earlier_run',
      logs: [{ step: 'problem_key_held', payload: earlier }],
    };
  };

  /** RETRIEVING → GENERATING_SOLUTION: the solve child run; the run waits for its `child` input. */
  const generate = (run: Run, data: D, stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
    const { primary_model, fallback_models, cost_cap_usd, retry_max } = data.policy;
    const input: SolveStart = {
      signature: required(data.signature, 'the problem signature'),
      policy: { primary_model, fallback_models, cost_cap_usd, retry_max },
    };
    return {
      outcome: 'transition',
      to: 'GENERATING_SOLUTION',
      data: { ...data, step: null, solveRunId: childRunIdFor(run, SOLVE_WORKFLOW, SOLVE_CHILD_KEY) },
      step: stepName,
      logs,
      effects: [...clearPendingRetry(run.data.step), { type: 'startChild', workflowType: SOLVE_WORKFLOW, key: SOLVE_CHILD_KEY, input }],
    };
  };

  /** SUCCEEDED (outcome=new); the index may have been deferred to a reindex_asset background run. */
  const succeedNew = (run: Run, indexDeferred: boolean, stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
    const data = run.data;
    const version = required(data.assetVersionCreated, 'the asset version');
    const signature = required(data.signature, 'the problem signature');
    const mode = data.policy.video_generation;
    const effects: Effect[] = [...clearPendingRetry(data.step)];
    if (indexDeferred) {
      const reindex: ReindexStart = { problemId: version.problemId, assetVersionId: version.assetVersionId, signature };
      effects.push({ type: 'startBackground', workflowType: REINDEX_ASSET, key: 'reindex', input: reindex });
    }
    // Video never blocks the user's result: a background run (priority lane for `sync`), and
    // `video_pending` tells the client a video is coming in both modes (ADR: video_generation sync).
    if (mode !== 'skip') {
      const video: VideoStart = { problemId: version.problemId, solutionAssetVersionId: version.assetVersionId, mode };
      effects.push({ type: 'startBackground', workflowType: VIDEO_WORKFLOW, key: 'video', input: video });
    }
    return {
      outcome: 'transition',
      to: 'SUCCEEDED',
      data: {
        ...data,
        result: { outcome: 'new', assetVersionId: version.assetVersionId, isApproximate: false, videoPending: mode !== 'skip', indexDeferred },
      },
      step: stepName,
      logs,
      effects,
    };
  };

  /** Spec retry table: INGESTING retry_max (1 s, 4 s, 16 s), RETRIEVING 3, REGISTERING 5; INDEXING defers. */
  const onStepTimeout = (run: Run, step: StepProgress<StepName>): RogDecision => {
    const retryOr = (maxRetries: number, backoff: Backoff, errorCode: RetrieveOrGenerateErrorCode): RogDecision => {
      const stepName = `${step.name}_timed_out`;
      if (retriesUsed(step) < maxRetries) {
        const retry = scheduleRetry(run, step, backoff, 'timeout');
        return { outcome: 'stay', data: { ...run.data, step: retry.step }, step: stepName, logs: [retry.log], effects: retry.effects };
      }
      return fail(run, run.data, errorCode, `no reply after ${step.tries} tries`, stepName);
    };
    switch (step.name) {
      case 'ingest':
        return retryOr(run.data.policy.retry_max, timings.ingest.backoff, 'ingest_timeout');
      case 'retrieve':
        return retryOr(RETRIES.retrieve, timings.retrieve.backoff, 'retrieval_timeout');
      case 'register':
        return retryOr(RETRIES.register, timings.register.backoff, 'registration_timeout');
      case 'index':
        // Index failure is non-fatal: the asset is served now and indexed by a background run.
        return succeedNew(run, true, 'index_timed_out', [
          { step: 'index_deferred', payload: { reason: 'timeout', timeout_ms: timings.index.timeoutMs, asset_version_id: run.data.assetVersionCreated?.assetVersionId ?? null } },
        ]);
    }
  };

  /** The step's own timers: its latest try timed out (from pickup), or its backoff is over. */
  const stepTimeoutRow = (name: StepName, to: readonly S[]) =>
    onTimer<S, D>(stepTimeoutInputName(name), to, (run, timer) => {
      const step = run.data.step;
      if (step?.name !== name || !isStepTimeout({ kind: 'timer', ...timer }, step)) return ignore('stale step timeout');
      return onStepTimeout(run, step);
    });
  const retryDueRow = (name: StepName) =>
    onTimer<S, D>(retryTimerName(name), [], (run, timer) => {
      const step = run.data.step;
      if (step?.name !== name || !isRetryDue(run, { kind: 'timer', ...timer }, step)) return ignore('stale retry timer');
      const next = nextTry(step);
      const data: D = { ...run.data, step: next };
      return { outcome: 'stay', data, step: `${step.name}_retried`, effects: [commandFor(run, data, next)] };
    });
  /** The run's deadline (flow control): whatever was made so far stays (a generated solution, in the run's data and its blob). */
  const deadlineRow = onTimer<S, D>(RUN_DEADLINE_TIMER, ['FAILED'], (run) => {
    const kept = run.data.solution === null ? '' : `; the generated solution is kept (${run.data.solution.storageKey})`;
    return fail(run, run.data, 'deadline_exceeded', `run deadline of ${run.data.policy.run_deadline_ms} ms passed in ${run.state}${kept}`, 'deadline_exceeded');
  });
  const replyTo = (run: Run, name: StepName, commandId: string): boolean => isReplyTo(run, run.data.step, name, commandId);

  /** REGISTERING → INDEXING once both registry events are in, whichever came first. */
  const afterRegistryEvent = (run: Run, data: D, stepName: string): RogDecision => {
    const problem = data.problemRegistered;
    const version = data.assetVersionCreated;
    if (problem === null || version === null) return { outcome: 'stay', data, step: stepName };
    if (problem.problemId !== version.problemId) {
      return { outcome: 'refuse', reason: `ProblemRegistered (${problem.problemId}) and AssetVersionCreated (${version.problemId}) name different problems` };
    }
    return enterStep(run, data, 'INDEXING', 'index', stepName);
  };

  /** The solve child run ended: register its solution, or serve a near-miss, or fail. */
  const onSolveFinished = (run: Run, input: ChildInput): RogDecision => {
    if (input.childRunId !== run.data.solveRunId) return ignore('stale child result');
    const view = solveViewSchema.safeParse(input.view);
    const data: D = { ...run.data, costUsd: run.data.costUsd + (view.success ? view.data.cost_usd : 0) };
    if (input.state === 'SUCCEEDED') {
      const solved = view.success ? view.data : undefined;
      if (solved?.storageKey === undefined || solved.contentSha256 === undefined || solved.provenance === undefined) {
        return fail(run, data, 'invalid_solve_result', 'solve_workflow succeeded without storageKey, contentSha256 and provenance', 'solve_failed');
      }
      const solution = { storageKey: solved.storageKey, contentSha256: solved.contentSha256, provenance: solved.provenance };
      return enterStep(run, { ...data, solution }, 'REGISTERING', 'register', 'solution_generated');
    }
    // FAILED (retries exhausted, not retryable, or cost cap) or CANCELLED.
    const reported = solveErrorCode.safeParse(view.success ? view.data.error_code : undefined);
    const errorCode: RetrieveOrGenerateErrorCode = input.state === 'CANCELLED' ? 'solve_cancelled' : reported.success ? reported.data : 'solve_failed';
    const capExceeded = errorCode === 'cost_cap_exceeded' || data.costUsd > data.policy.cost_cap_usd;
    // Spec: a near-miss only "after all retries AND cost cap not exceeded": not after a non-retryable
    // failure (the model said it cannot solve it) and not after the solve run was cancelled.
    const retriesExhausted = input.state === 'FAILED' && view.success && view.data.retries_exhausted === true;
    const near = data.topCandidate;
    const solveFailed: StepLogEntry = {
      step: 'solve_failed',
      payload: { error_code: errorCode, cost_usd: roundUsd(data.costUsd), cost_cap_exceeded: capExceeded, retries_exhausted: retriesExhausted },
    };
    if (retriesExhausted && !capExceeded && near !== null && near.confidence > NEAR_MISS_MIN_CONFIDENCE) {
      // Served as outcome=hit: the user gets an existing, retrieved solution (nothing new was made, so no
      // video and no indexing), flagged as approximate.
      return {
        outcome: 'transition',
        to: 'SUCCEEDED',
        data: { ...data, result: { outcome: 'hit', assetVersionId: near.assetVersionId, isApproximate: true, videoPending: false, indexDeferred: false } },
        step: 'near_miss_served',
        logs: [solveFailed, { step: 'near_miss', payload: { asset_version_id: near.assetVersionId, confidence: near.confidence, method: near.method } }],
      };
    }
    return fail(run, data, errorCode, `solve_workflow ${input.state.toLowerCase()}${capExceeded ? ' (cost cap exceeded)' : ''}`, 'solve_failed');
  };

  /** Spec 01's rows: state → input → the states it may move to → decision. */
  const table: WorkflowTable<S, D> = {
    INITIATED: [onStart(['INGESTING'], (run, _input, { now }) => start(run, now))],
    INGESTING: [
      onEvent(MediaNormalized, ['RETRIEVING'], (run, { data: e }) => {
        if (!replyTo(run, 'ingest', e.commandId)) return ignore('stale MediaNormalized');
        if (!signatureComputed(e.signature)) return { outcome: 'refuse', reason: 'problem signature not computed: no normalised text and no image hash' };
        const { request } = run.data;
        const sensitivity = contentSensitivityOf(request, e.signature);
        if (sensitivity === request.contentSensitivity) {
          return claimProblemKey(run, { ...run.data, signature: e.signature, mediaType: e.mediaType });
        }
        // Tagged sensitive while ingesting: the policy is resolved again with the sensitive layer
        // before anything it governs (retrieval's bars, video) is decided.
        const policy = policies.getPolicy(RETRIEVE_OR_GENERATE, run.userId, request.subscriptionTier, sensitivity);
        const tightened: StepLogEntry = {
          step: 'policy_applied',
          payload: {
            policy,
            workflow_type: RETRIEVE_OR_GENERATE,
            subscription_tier: request.subscriptionTier,
            content_sensitivity: sensitivity,
            reason: 'content tagged sensitive while ingesting',
            sensitivity_reasons: e.signature.sensitivityReasons ?? [],
          },
        };
        const data: D = { ...run.data, signature: e.signature, mediaType: e.mediaType, policy, contentSensitivity: sensitivity };
        return claimProblemKey(run, data, [tightened]);
      }),
      onEvent(MediaRejected, ['FAILED'], (run, { data: e }) =>
        replyTo(run, 'ingest', e.commandId) ? fail(run, run.data, e.reason, e.detail, 'media_rejected') : ignore('stale MediaRejected'),
      ),
      stepTimeoutRow('ingest', ['FAILED']),
      retryDueRow('ingest'),
      deadlineRow,
    ],
    RETRIEVING: [
      // SUCCEEDED: an earlier run with the same signature, user and intent succeeded; its result is this run's.
      onClaim(['SUCCEEDED'], (run, claim) => onProblemKeyClaim(run, claim)),
      onEvent(RetrievalHit, ['SUCCEEDED', 'GENERATING_SOLUTION'], (run, { data: e }) => {
        if (!replyTo(run, 'retrieve', e.commandId)) return ignore('stale RetrievalHit');
        const candidate = e.candidate;
        const bar = acceptanceBar(candidate.method, run.data.policy);
        if (candidate.confidence < bar) {
          // Below the policy's bar (retrieval may run with another threshold): a miss, with this as its top candidate.
          return generate(run, { ...run.data, topCandidate: candidate }, 'retrieval_hit_below_threshold', [
            { step: 'hit_below_threshold', payload: { confidence: candidate.confidence, threshold: bar, method: candidate.method } },
          ]);
        }
        return {
          outcome: 'transition',
          to: 'SUCCEEDED',
          data: { ...run.data, result: { outcome: 'hit', assetVersionId: candidate.assetVersionId, isApproximate: false, videoPending: false, indexDeferred: false } },
          step: 'retrieval_hit',
          effects: clearPendingRetry(run.data.step),
        };
      }),
      onEvent(RetrievalMiss, ['GENERATING_SOLUTION'], (run, { data: e }) =>
        replyTo(run, 'retrieve', e.commandId) ? generate(run, { ...run.data, topCandidate: e.topCandidate }, 'retrieval_miss') : ignore('stale RetrievalMiss'),
      ),
      stepTimeoutRow('retrieve', ['FAILED']),
      retryDueRow('retrieve'),
      deadlineRow,
    ],
    GENERATING_SOLUTION: [
      // SUCCEEDED: a near-miss served after a failed solve (the one edge beyond the spec's TRANSITIONS).
      onChild(SOLVE_WORKFLOW, ['REGISTERING', 'FAILED', 'SUCCEEDED'], (run, child) => onSolveFinished(run, child)),
      deadlineRow,
    ],
    REGISTERING: [
      onEvent(ProblemRegistered, ['INDEXING'], (run, { data: e }) => {
        if (!replyTo(run, 'register', e.commandId)) return ignore('stale ProblemRegistered');
        if (run.data.problemRegistered !== null) return ignore('ProblemRegistered already recorded');
        return afterRegistryEvent(run, { ...run.data, problemRegistered: { problemId: e.problemId, created: e.created } }, 'problem_registered');
      }),
      onEvent(AssetVersionCreated, ['INDEXING'], (run, { data: e }) => {
        if (!replyTo(run, 'register', e.commandId)) return ignore('stale AssetVersionCreated');
        if (e.assetType !== 'solution_html') return { outcome: 'refuse', reason: `asset version of type ${e.assetType}, not solution_html` };
        if (run.data.assetVersionCreated !== null) return ignore('AssetVersionCreated already recorded');
        return afterRegistryEvent(run, { ...run.data, assetVersionCreated: { assetVersionId: e.assetVersionId, problemId: e.problemId, version: e.version } }, 'asset_version_created');
      }),
      stepTimeoutRow('register', ['FAILED']),
      retryDueRow('register'),
      deadlineRow,
    ],
    INDEXING: [
      onEvent(DocumentIndexed, ['SUCCEEDED'], (run, { data: e }) => {
        if (!replyTo(run, 'index', e.commandId)) return ignore('stale DocumentIndexed');
        if (e.assetVersionId !== run.data.assetVersionCreated?.assetVersionId) return { outcome: 'refuse', reason: 'DocumentIndexed for another asset version' };
        return succeedNew(run, false, 'document_indexed');
      }),
      // Index failure is non-fatal: SUCCEEDED now, indexed by a reindex_asset background run.
      stepTimeoutRow('index', ['SUCCEEDED']),
      deadlineRow,
    ],
  };

  return {
    type: RETRIEVE_OR_GENERATE,
    states: RETRIEVE_OR_GENERATE_STATES,
    initial: 'INITIATED',
    transitions: transitionsOf(table, { from: ['INITIATED', 'INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION'], to: 'CANCELLED' }),
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    // Spec 01 re-runs a FAILED key as attempt n + 1; a CANCELLED one too (ADR 0016): the user stopped
    // that attempt, and submitting the problem again is asking for it anew.
    retryableFrom: ['FAILED', 'CANCELLED'],
    // Spec 01: a FAILED run's key is re-run, not answered from; a CANCELLED one's too (ADR 0016).
    keyClaims: { releasedIn: ['FAILED', 'CANCELLED'] },
    // Cancelled while the solve child works: that run is cancelled too, so it stops spending.
    onCancel: (run) => ({
      data: run.data,
      effects:
        run.state === 'GENERATING_SOLUTION' && run.data.solveRunId !== null
          ? [{ type: 'cancelChild', workflowType: SOLVE_WORKFLOW, key: SOLVE_CHILD_KEY, reason: 'the parent run was cancelled' }]
          : [],
    }),
    inputs: [MediaNormalized, MediaRejected, RetrievalHit, RetrievalMiss, ProblemRegistered, AssetVersionCreated, DocumentIndexed],
    init(input, run) {
      const request = retrieveOrGenerateStartSchema.parse(input);
      return {
        request,
        policy: policies.getPolicy(RETRIEVE_OR_GENERATE, run.userId, request.subscriptionTier, request.contentSensitivity),
        startedAt: null,
        step: null,
        signature: null,
        mediaType: null,
        topCandidate: null,
        problemKey: null,
        waitingForRunId: null,
        cachedFrom: null,
        solveRunId: null,
        solution: null,
        problemRegistered: null,
        assetVersionCreated: null,
        result: null,
        costUsd: 0,
        errorCode: null,
      };
    },
    decide: decideByTable(RETRIEVE_OR_GENERATE, table),
    view(run): RetrieveOrGenerateView {
      const d = run.data;
      const result = d.result;
      return {
        status: statusOf(run.state),
        ...(result === null ? {} : { outcome: result.outcome }),
        output:
          result === null ? {} : { asset_version_id: result.assetVersionId, video_pending: result.videoPending, is_approximate: result.isApproximate },
        workflow_run_id: run.id,
        attempt_no: run.attemptNo,
        cost_usd: roundUsd(d.costUsd),
        duration_ms: durationMs(run, d.startedAt),
        ...(d.errorCode === null ? {} : { error_code: d.errorCode }),
        state: run.state,
        ...(d.signature === null ? {} : { problem_signature: { text_sha256: d.signature.textSha256, subject: d.signature.topicTags.subject } }),
        ...(d.waitingForRunId == null ? {} : { waiting_for_run_id: d.waitingForRunId }),
        ...(d.cachedFrom == null ? {} : { cached_from: d.cachedFrom }),
      };
    },
  };
}
