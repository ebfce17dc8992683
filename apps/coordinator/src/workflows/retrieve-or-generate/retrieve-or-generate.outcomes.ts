import { childRunIdFor, clearPendingRetry, type Decision, type Effect, isReplyTo, type RunSnapshot, type StepLogEntry } from '@openpaw/saga';
import type { ReindexStart } from '../reindex-asset/reindex-asset.definition.js';
import { REINDEX_ASSET, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import type { SolveStart } from '../solve/solve-workflow.definition.js';
import type { VideoStart } from '../video/video-workflow.definition.js';
import { problemKeyOf } from './problem-key.js';
import { type RetrieveOrGenerateCommands, SOLVE_CHILD_KEY } from './retrieve-or-generate.commands.js';
import {
  type Candidate,
  type DataAt,
  factsOf,
  type Ingested,
  ingestedOf,
  type RetrieveOrGenerateData,
  type RetrieveOrGenerateErrorCode,
  type RunFacts,
  type RunningData,
  type Stage,
  type StepData,
} from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

type S = RetrieveOrGenerateState;
type D = RetrieveOrGenerateData;
export type Run = RunSnapshot<S, D>;
export type RogDecision = Decision<S, D>;

export const ignore = (reason: string): RogDecision => ({ outcome: 'ignore', reason });

/** The row's handler, for the stage of its state it answers in; any other stage ignores the input (a late or stale one). */
export function during<K extends Stage>(run: Run, stage: K, decide: (data: DataAt<K>) => RogDecision, otherwise = `not for a run ${run.data.stage}`): RogDecision {
  return run.data.stage === stage ? decide(run.data as DataAt<K>) : ignore(otherwise);
}

/** The reply answers some try of the stage's step; else it is stale. */
export const replyTo = (run: Run, data: StepData, commandId: string): boolean => isReplyTo(run, data.step, data.step.name, commandId);

/** A step's backoff timer still pending when its stage is left is cleared. */
export const leaving = (data: D): Effect[] => clearPendingRetry('step' in data ? data.step : null);

/** FAILED, keeping what the run had got to (its signature shows in the view; a generated solution is kept). */
export function failedData(data: RunningData, errorCode: RetrieveOrGenerateErrorCode): DataAt<'failed'> {
  return {
    ...factsOf(data),
    startedAt: data.startedAt,
    ...('signature' in data ? { signature: data.signature, mediaType: data.mediaType } : {}),
    ...('solution' in data ? { solution: data.solution } : {}),
    stage: 'failed',
    errorCode,
  };
}

/**
 * The decisions more than one row reaches, each named by where it goes: a stage's first command,
 * FAILED, RETRIEVING (claim the key), GENERATING_SOLUTION, SUCCEEDED with a new solution.
 */
// Over 60 lines only as the closure of five small decisions over the commands (each under 30 lines).
export function retrieveOrGenerateOutcomes(commands: RetrieveOrGenerateCommands) {
  const { commandFor } = commands;

  /** Leaves `from` for the next state's stage and sends the first try of its command. */
  const enterStep = (run: Run, from: D, to: S, next: StepData, stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => ({
    outcome: 'transition',
    to,
    data: next,
    step: stepName,
    logs,
    effects: [...leaving(from), commandFor(run, next)],
  });

  const fail = (run: Run, data: RunningData, errorCode: RetrieveOrGenerateErrorCode, detail: string, stepName: string): RogDecision => ({
    outcome: 'transition',
    to: 'FAILED',
    data: failedData(data, errorCode),
    step: stepName,
    logs: [{ step: 'error_recorded', payload: { error_code: errorCode, detail } }],
  });

  /**
   * INGESTING → RETRIEVING: the signature is known, so the run claims spec 01's key before it
   * searches (the engine answers with a `claim` input in the same transaction).
   */
  const claimProblemKey = (run: Run, from: DataAt<'ingesting'>, ingested: RunFacts & Ingested, logs: readonly StepLogEntry[] = []): RogDecision => {
    const problemKey = problemKeyOf(ingested.signature, run.userId, ingested.request.intent);
    const claiming: DataAt<'claiming'> = { ...ingestedOf({ ...ingested, startedAt: from.startedAt }), stage: 'claiming', problemKey };
    return {
      outcome: 'transition',
      to: 'RETRIEVING',
      data: claiming,
      step: 'media_normalized',
      logs,
      effects: [...leaving(from), { type: 'claimKey', key: problemKey }],
    };
  };

  /** RETRIEVING → GENERATING_SOLUTION: the solve child run; the run waits for its `child` input. */
  const generate = (run: Run, from: DataAt<'searching'>, topCandidate: Candidate | null, stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
    const { primary_model, fallback_models, cost_cap_usd, retry_max } = from.policy;
    const input: SolveStart = { signature: from.signature, policy: { primary_model, fallback_models, cost_cap_usd, retry_max } };
    const generating: DataAt<'generating'> = { ...ingestedOf(from), stage: 'generating', topCandidate, solveRunId: childRunIdFor(run, SOLVE_WORKFLOW, SOLVE_CHILD_KEY) };
    return {
      outcome: 'transition',
      to: 'GENERATING_SOLUTION',
      data: generating,
      step: stepName,
      logs,
      effects: [...leaving(from), { type: 'startChild', workflowType: SOLVE_WORKFLOW, key: SOLVE_CHILD_KEY, input }],
    };
  };

  /**
   * SUCCEEDED (outcome=new; a hit when it is a renamed hit the maths engine rendered in the asker's
   * names); the index may have been deferred to a reindex_asset background run.
   */
  const succeedNew = (run: Run, from: DataAt<'indexing'>, indexDeferred: boolean, stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
    const version = from.assetVersionCreated;
    const mode = from.policy.video_generation;
    const effects: Effect[] = [...leaving(from)];
    if (indexDeferred) {
      const reindex: ReindexStart = { problemId: version.problemId, assetVersionId: version.assetVersionId, signature: from.signature };
      effects.push({ type: 'startBackground', workflowType: REINDEX_ASSET, key: 'reindex', input: reindex });
    }
    // Video never blocks the user's result: a background run (priority lane for `sync`), and
    // `video_pending` tells the client a video is coming in both modes (ADR: video_generation sync).
    if (mode !== 'skip') {
      const video: VideoStart = { problemId: version.problemId, solutionAssetVersionId: version.assetVersionId, mode };
      effects.push({ type: 'startBackground', workflowType: VIDEO_WORKFLOW, key: 'video', input: video });
    }
    const succeeded: DataAt<'succeeded'> = {
      ...ingestedOf(from),
      stage: 'succeeded',
      result: { outcome: relabelledByTheEngine(from) ? 'hit' : 'new', assetVersionId: version.assetVersionId, isApproximate: false, videoPending: mode !== 'skip', indexDeferred },
    };
    return { outcome: 'transition', to: 'SUCCEEDED', data: succeeded, step: stepName, logs, effects };
  };

  return { enterStep, fail, claimProblemKey, generate, succeedNew };
}

export type RetrieveOrGenerateOutcomes = ReturnType<typeof retrieveOrGenerateOutcomes>;

/**
 * A renamed maths hit whose solution the maths engine produced: the engine's solution is structured
 * (parsed maths, checked steps), so solving the asker's maths is the stored solution re-rendered under
 * the bijection. A model's prose is never relabelled: it was solved afresh, a new solution.
 */
function relabelledByTheEngine(data: DataAt<'indexing'>): boolean {
  return data.renamedHit !== undefined && data.solution.provenance.mathsEngine === 'solved';
}
