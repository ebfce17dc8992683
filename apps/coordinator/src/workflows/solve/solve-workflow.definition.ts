import { GenerateSolution, type MessageData, problemSignature, SolutionFailed, SolutionGenerated, solutionProvenance, type solveErrorCode } from '@openpaw/contracts';
import { clearPendingRetry, clearStepTimeout, type Decision, eventOf, firstTry, isReplyTo, isReplyToLatest, isRetryDue, isStepTimeout, nextTry, retriesUsed, type RunSnapshot, type SagaDefinition, type SagaInput, scheduleRetry, sendTry, type StepProgress } from '@openpaw/saga';
import { z } from 'zod';
import { executionPolicySchema } from '../policy/index.js';
import { durationMs, roundUsd, statusOf } from '../shared/run-status.js';
import { DEFAULT_WORKFLOW_TIMINGS, type WorkflowTimings } from '../shared/timings.js';
import { SOLVE_WORKFLOW } from '../shared/workflow-types.js';

/**
 * SolveWorkflow: the child run of retrieve_or_generate's GENERATING_SOLUTION. One GenerateSolution
 * command per attempt: the primary model first, then the fallback chain; a retryable failure (or no
 * reply in time) is retried after an exponential backoff while retries (policy.retry_max) and budget
 * (policy.cost_cap_usd) remain. Its view is what the parent reads when the child finishes.
 */
export const SOLVE_STATES = ['INITIATED', 'GENERATING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type SolveState = (typeof SOLVE_STATES)[number];

export const SOLVE_TRANSITIONS = {
  INITIATED: ['GENERATING', 'CANCELLED'],
  GENERATING: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
} as const satisfies Partial<Record<SolveState, readonly SolveState[]>>;

/** The part of the parent's ExecutionPolicy that governs solving. */
export const solvePolicySchema = executionPolicySchema.pick({ primary_model: true, fallback_models: true, cost_cap_usd: true, retry_max: true });
export type SolvePolicy = z.infer<typeof solvePolicySchema>;

export const solveStartSchema = z.object({ signature: problemSignature, policy: solvePolicySchema });
export type SolveStart = z.infer<typeof solveStartSchema>;

type SolveErrorCode = z.infer<typeof solveErrorCode>;
type Provenance = z.infer<typeof solutionProvenance>;

export interface SolveData {
  readonly signature: SolveStart['signature'];
  readonly policy: SolvePolicy;
  /** ISO time this attempt started (set by the start decision). */
  readonly startedAt: string | null;
  readonly step: StepProgress<'generate'> | null;
  /** LLM spend over every generation attempt, in USD. */
  readonly spentUsd: number;
  readonly solution: { readonly storageKey: string; readonly contentSha256: string; readonly provenance: Provenance } | null;
  readonly errorCode: SolveErrorCode | null;
  readonly errorDetail: string | null;
  /** Failed after every retry policy.retry_max allowed (not on a non-retryable error or the cost cap). */
  readonly retriesExhausted?: boolean;
}

/** The view published with every change, and handed to the parent (`child` input) at the end. */
export const solveViewSchema = z.object({
  status: z.enum(['running', 'succeeded', 'failed', 'cancelled']),
  state: z.string(),
  /** Generation attempts made. */
  attempts: z.int().nonnegative(),
  /** Model of the latest attempt. */
  model: z.string(),
  cost_usd: z.number().nonnegative(),
  duration_ms: z.number().nonnegative(),
  storageKey: z.string().optional(),
  contentSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  provenance: solutionProvenance.optional(),
  error_code: z.string().optional(),
  error_detail: z.string().optional(),
  /** The run failed after all its retries (spec 01's condition for a near-miss), not on a non-retryable error or the cost cap. */
  retries_exhausted: z.boolean().optional(),
});
export type SolveView = z.infer<typeof solveViewSchema>;

/** Attempt 1 uses the primary model, attempt n the (n−1)th fallback; the last model repeats once the chain is spent. */
export function modelChain(policy: SolvePolicy): readonly string[] {
  return [policy.primary_model, ...policy.fallback_models];
}

export function modelFor(policy: SolvePolicy, attempt: number): string {
  const chain = modelChain(policy);
  return chain[Math.min(attempt, chain.length) - 1] ?? policy.primary_model;
}

interface Failure {
  readonly errorCode: SolveErrorCode;
  readonly retryable: boolean;
  readonly costUsd: number;
  readonly detail: string;
}

type SolveDecision = Decision<SolveState, SolveData>;
type SolveRun = RunSnapshot<SolveState, SolveData>;

const ignore = (reason: string): SolveDecision => ({ outcome: 'ignore', reason });

export function solveWorkflowDefinition(timings: WorkflowTimings = DEFAULT_WORKFLOW_TIMINGS): SagaDefinition<SolveState, SolveData> {
  const generate = (run: SolveRun, data: SolveData, step: StepProgress<'generate'>) => {
    const model = modelFor(data.policy, step.tries);
    const command: MessageData<typeof GenerateSolution> = {
      runId: run.id,
      attempt: step.tries,
      signature: data.signature,
      model,
      // What remains of the chain after this attempt's model (the service may fall back within the attempt).
      fallbackModels: modelChain(data.policy).slice(step.tries),
      costCapUsd: data.policy.cost_cap_usd,
      spentUsd: roundUsd(data.spentUsd),
    };
    return sendTry(GenerateSolution, command, step, timings.generate.timeoutMs);
  };

  const fail = (run: SolveRun, spentUsd: number, errorCode: SolveErrorCode, detail: string, stepName: string, retriesExhausted = false): SolveDecision => ({
    outcome: 'transition',
    to: 'FAILED',
    data: { ...run.data, spentUsd, errorCode, errorDetail: detail, retriesExhausted },
    step: stepName,
    logs: [{ step: 'error_recorded', payload: { error_code: errorCode, detail, attempts: run.data.step?.tries ?? 0, spent_usd: roundUsd(spentUsd) } }],
  });

  /** A failed (or silent) attempt: retry with the next model, or fail; the cost cap and retry_max decide. */
  const onFailure = (run: SolveRun, step: StepProgress<'generate'>, failure: Failure, stepName: string, answered: boolean): SolveDecision => {
    const { policy } = run.data;
    const spent = run.data.spentUsd + failure.costUsd;
    if (failure.errorCode === 'cost_cap_exceeded') return fail(run, spent, 'cost_cap_exceeded', failure.detail, stepName);
    if (!failure.retryable) return fail(run, spent, failure.errorCode, failure.detail, stepName);
    if (retriesUsed(step) >= policy.retry_max) {
      return fail(run, spent, failure.errorCode, `${failure.detail} (retries exhausted: ${step.tries} attempts)`, stepName, true);
    }
    if (spent >= policy.cost_cap_usd) {
      return fail(run, spent, 'cost_cap_exceeded', `spent ${roundUsd(spent)} of the ${policy.cost_cap_usd} USD cap; no retry`, stepName);
    }
    const retry = scheduleRetry(run, step, timings.generate.backoff, failure.errorCode);
    return {
      outcome: 'stay',
      data: { ...run.data, step: retry.step, spentUsd: spent },
      step: stepName,
      logs: [retry.log],
      effects: [...(answered ? [clearStepTimeout(step)] : []), ...retry.effects],
    };
  };

  const onEvent = (run: SolveRun, input: SagaInput): SolveDecision => {
    const step = run.data.step;
    const generated = eventOf(input, SolutionGenerated);
    if (generated !== undefined) {
      // A solution from any try of this attempt is good, even one that arrives after its try timed out.
      if (run.state !== 'GENERATING' || !isReplyTo(run, step, 'generate', generated.data.commandId)) return ignore('stale SolutionGenerated');
      const { storageKey, contentSha256, provenance } = generated.data;
      return {
        outcome: 'transition',
        to: 'SUCCEEDED',
        data: { ...run.data, spentUsd: run.data.spentUsd + provenance.costUsd, solution: { storageKey, contentSha256, provenance } },
        step: 'solution_generated',
        effects: clearPendingRetry(step),
      };
    }
    const failed = eventOf(input, SolutionFailed);
    if (failed !== undefined) {
      if (run.state !== 'GENERATING' || step === null) return ignore('stale SolutionFailed');
      const { errorCode, retryable, costUsd, detail, commandId } = failed.data;
      if (isReplyToLatest(run, step, 'generate', commandId)) return onFailure(run, step, { errorCode, retryable, costUsd, detail }, 'generate_failed', true);
      // The failure of a try already given up on (timed out): nothing to decide, but its cost counts.
      if (isReplyTo(run, step, 'generate', commandId) && costUsd > 0) {
        return { outcome: 'stay', data: { ...run.data, spentUsd: run.data.spentUsd + costUsd }, step: 'late_failure_cost_recorded' };
      }
      return ignore('stale SolutionFailed');
    }
    return ignore(`not an input of ${SOLVE_WORKFLOW}`);
  };

  const onTimer = (run: SolveRun, input: SagaInput): SolveDecision => {
    const step = run.data.step;
    if (run.state !== 'GENERATING' || step === null) return ignore('timer outside GENERATING');
    if (isStepTimeout(input, step)) {
      const failure: Failure = { errorCode: 'timeout', retryable: true, costUsd: 0, detail: `no reply within ${timings.generate.timeoutMs} ms` };
      return onFailure(run, step, failure, 'generate_timed_out', false);
    }
    if (isRetryDue(run, input, step)) {
      const next = nextTry(step);
      const model = modelFor(run.data.policy, next.tries);
      return {
        outcome: 'stay',
        data: { ...run.data, step: next },
        step: 'generate_retried',
        logs: [{ step: 'model_selected', payload: { attempt: next.tries, model, fallback: model !== run.data.policy.primary_model } }],
        effects: [generate(run, run.data, next)],
      };
    }
    return ignore('stale timer');
  };

  return {
    type: SOLVE_WORKFLOW,
    states: SOLVE_STATES,
    initial: 'INITIATED',
    transitions: SOLVE_TRANSITIONS,
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    inputs: [SolutionGenerated, SolutionFailed],
    init(input) {
      const start = solveStartSchema.parse(input);
      return { signature: start.signature, policy: start.policy, startedAt: null, step: null, spentUsd: 0, solution: null, errorCode: null, errorDetail: null };
    },
    decide(run, input, { now }) {
      switch (input.kind) {
        case 'start': {
          const step = firstTry('generate');
          const data: SolveData = { ...run.data, startedAt: now.toISOString(), step };
          return {
            outcome: 'transition',
            to: 'GENERATING',
            data,
            step: 'generate_requested',
            logs: [{ step: 'policy_applied', payload: { policy: run.data.policy, model: modelFor(run.data.policy, 1) } }],
            effects: [generate(run, data, step)],
          };
        }
        case 'event':
          return onEvent(run, input);
        case 'timer':
          return onTimer(run, input);
        case 'child':
        case 'human':
        case 'cancel':
        case 'claim':
          return ignore(`${input.kind} is not an input of ${SOLVE_WORKFLOW}`);
      }
    },
    view(run): SolveView {
      const d = run.data;
      return {
        status: statusOf(run.state),
        state: run.state,
        attempts: d.step?.tries ?? 0,
        model: modelFor(d.policy, Math.max(1, d.step?.tries ?? 1)),
        cost_usd: roundUsd(d.spentUsd),
        duration_ms: durationMs(run, d.startedAt),
        ...(d.solution === null ? {} : d.solution),
        ...(d.errorCode === null ? {} : { error_code: d.errorCode }),
        ...(d.errorDetail === null ? {} : { error_detail: d.errorDetail }),
        ...(run.state === 'FAILED' ? { retries_exhausted: d.retriesExhausted === true } : {}),
      };
    },
  };
}
