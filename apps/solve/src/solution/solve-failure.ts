import type { solveErrorCode } from '@openpaw/contracts';
import { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from '@openpaw/providers';
import type { z } from 'zod';

export type SolveErrorCode = z.infer<typeof solveErrorCode>;

/** A solve attempt's failure as `SolutionFailed` reports it. */
export interface SolveFailure {
  readonly errorCode: SolveErrorCode;
  readonly retryable: boolean;
  readonly detail: string;
}

export interface FailureContext {
  /** The attempt's own deadline fired (the LLM call was aborted by it). */
  readonly deadlineExceeded: boolean;
  /** Earlier attempts of the same run that ended `invalid_output`: it is retryable once per run. */
  readonly earlierInvalidOutputs: number;
}

const MAX_DETAIL = 1_000;

/**
 * Maps an error of the LLM call to the failure it reports, or undefined when it is not an LLM failure
 * (a database or storage error: the command is retried by redelivery instead, and nothing is reported).
 *
 * - `cost_cap_exceeded` (not retryable): no model of the chain fits in the run's remaining budget;
 * - `invalid_output` (retryable once per run): the reply failed the schema even after the re-ask;
 * - `timeout` (retryable): the attempt's deadline fired, or every model attempt timed out;
 * - `llm_unavailable` (retryable): every model failed (rate limits, 5xx, network, auth, cooldown).
 *
 * `cannot_solve` is not an error: the model answered `can_solve: false` (see `cannotSolve`).
 */
export function failureFromError(error: unknown, context: FailureContext): SolveFailure | undefined {
  if (error instanceof CostCapExceededError) {
    return { errorCode: 'cost_cap_exceeded', retryable: false, detail: clip(error.message) };
  }
  if (error instanceof StructuredOutputError) {
    return { errorCode: 'invalid_output', retryable: context.earlierInvalidOutputs === 0, detail: clip(error.message) };
  }
  if (context.deadlineExceeded) {
    return { errorCode: 'timeout', retryable: true, detail: clip(`the solve attempt's deadline passed: ${errorMessage(error)}`) };
  }
  if (error instanceof LlmCallFailedError) {
    const tried = error.attempts.filter((a) => a.outcome !== 'skipped_cooldown' && a.outcome !== 'not_configured');
    const allTimedOut = tried.length > 0 && tried.every((a) => a.outcome === 'timeout');
    return { errorCode: allTimedOut ? 'timeout' : 'llm_unavailable', retryable: true, detail: clip(error.message) };
  }
  if (error instanceof ProviderError) {
    return { errorCode: error.kind === 'timeout' ? 'timeout' : 'llm_unavailable', retryable: true, detail: clip(error.message) };
  }
  return undefined;
}

/** The model said it cannot solve the problem: final for this problem, whatever the retry policy. */
export function cannotSolve(reason: string | null): SolveFailure {
  const why = reason?.trim();
  return { errorCode: 'cannot_solve', retryable: false, detail: clip(why === undefined || why === '' ? 'the model could not solve the problem' : why) };
}

/** The model claimed a solution but gave no steps or no final answer. */
export function incompleteAnswer(what: string, earlierInvalidOutputs: number): SolveFailure {
  return { errorCode: 'invalid_output', retryable: earlierInvalidOutputs === 0, detail: clip(`the model answered can_solve: true but ${what}`) };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function clip(text: string): string {
  return text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL - 1)}…`;
}
