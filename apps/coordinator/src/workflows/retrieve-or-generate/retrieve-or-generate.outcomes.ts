import { type Decision, childRunIdFor, clearPendingRetry, type Effect, firstTry, isReplyTo, type RunSnapshot, type StepLogEntry } from '@openpaw/saga';
import { REINDEX_ASSET, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import type { ReindexStart } from '../reindex-asset/reindex-asset.definition.js';
import type { SolveStart } from '../solve/solve-workflow.definition.js';
import type { VideoStart } from '../video/video-workflow.definition.js';
import { problemKeyOf } from './problem-key.js';
import { type RetrieveOrGenerateCommands, SOLVE_CHILD_KEY } from './retrieve-or-generate.commands.js';
import { required, type RetrieveOrGenerateData, type RetrieveOrGenerateErrorCode, type StepName } from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

type S = RetrieveOrGenerateState;
type D = RetrieveOrGenerateData;
export type Run = RunSnapshot<S, D>;
export type RogDecision = Decision<S, D>;

export const ignore = (reason: string): RogDecision => ({ outcome: 'ignore', reason });

/** The reply answers the latest try of step `name`; else it is stale. */
export const replyTo = (run: Run, name: StepName, commandId: string): boolean => isReplyTo(run, run.data.step, name, commandId);

/**
 * The decisions more than one row reaches, each named by where it goes: the next command step,
 * FAILED, RETRIEVING (claim the key), GENERATING_SOLUTION, SUCCEEDED with a new solution.
 */
// Over 60 lines only as the closure of five small decisions over the commands (each under 30 lines).
export function retrieveOrGenerateOutcomes(commands: RetrieveOrGenerateCommands) {
  const { commandFor } = commands;

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

  return { enterStep, fail, claimProblemKey, generate, succeedNew };
}

export type RetrieveOrGenerateOutcomes = ReturnType<typeof retrieveOrGenerateOutcomes>;
