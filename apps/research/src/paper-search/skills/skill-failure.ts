import type { paperSearchErrorCode } from '@openpaw/contracts';
import { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from '@openpaw/providers';
import { ZodError, type z } from 'zod';
import { PaperSetUnreadableError } from '../papers/paper-sets.js';

export interface SkillFailure {
  readonly errorCode: z.infer<typeof paperSearchErrorCode>;
  readonly retryable: boolean;
  readonly detail: string;
}

/**
 * A skill's error, or an unreadable stored input list, as the PaperSearchStepFailed it becomes;
 * undefined for errors that are not a skill's answer (database down, bugs): those are retried by
 * redelivery instead.
 */
export function skillFailure(error: unknown, deadline?: AbortSignal): SkillFailure | undefined {
  if (deadline?.aborted === true) return { errorCode: 'timeout', retryable: true, detail: 'the step did not finish within its deadline' };
  // The command's stored list is gone or corrupt: the same command fails the same way, so not retryable.
  if (error instanceof PaperSetUnreadableError) return { errorCode: 'invalid_input', retryable: false, detail: error.message.slice(0, 2_000) };
  if (error instanceof CostCapExceededError) return { errorCode: 'cost_cap_exceeded', retryable: false, detail: error.message };
  if (error instanceof StructuredOutputError) return { errorCode: 'invalid_output', retryable: true, detail: error.message.slice(0, 2_000) };
  if (error instanceof ZodError) return { errorCode: 'invalid_output', retryable: true, detail: `model answer out of range: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`.slice(0, 2_000) };
  if (error instanceof LlmCallFailedError) {
    const timedOut = error.attempts.length > 0 && error.attempts.every((a) => a.outcome === 'timeout');
    return { errorCode: timedOut ? 'timeout' : 'llm_unavailable', retryable: true, detail: error.message.slice(0, 2_000) };
  }
  if (error instanceof ProviderError) return { errorCode: error.kind === 'timeout' ? 'timeout' : 'llm_unavailable', retryable: error.retryable, detail: error.message.slice(0, 2_000) };
  return undefined;
}
