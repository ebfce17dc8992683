import type { LegFailureReason, LegStatus, ResearchProvider } from '@openpaw/contracts';

/**
 * Spec 05 Phase 3, `checkLlmCompletion`, applied after every leg result:
 *
 * | Completed | Failed | Pending | Action                                      |
 * |-----------|--------|---------|---------------------------------------------|
 * | 0         | > 0    | 0       | Mark `failed`, error: "All LLM calls failed" |
 * | > 0       | 0      | 0       | Run synthesis (or skip)                     |
 * | > 0       | > 0    | 0       | Set `awaiting_confirmation`                 |
 * | any       | any    | > 0     | Wait (no action)                            |
 *
 * (`processing` counts as pending.)
 */
export type CompletionAction =
  | { readonly type: 'pending' }
  | { readonly type: 'all_failed' }
  | { readonly type: 'all_completed' }
  | { readonly type: 'partial_failure'; readonly failedProviders: readonly ResearchProvider[] };

export interface LegOutcome {
  readonly provider: ResearchProvider;
  readonly status: LegStatus;
}

export function checkLlmCompletion(results: readonly LegOutcome[]): CompletionAction {
  const pending = results.filter((r) => r.status === 'pending' || r.status === 'processing');
  const completed = results.filter((r) => r.status === 'completed');
  const failed = results.filter((r) => r.status === 'failed');
  if (pending.length > 0) return { type: 'pending' };
  if (completed.length === 0) return { type: 'all_failed' };
  if (failed.length === 0) return { type: 'all_completed' };
  return { type: 'partial_failure', failedProviders: failed.map((r) => r.provider) };
}

export const ALL_LLMS_FAILED = 'All LLM calls failed';
export const NO_SUCCESSFUL_RESULTS = 'No successful LLM results';
export const CANCELLED_BY_USER = 'Cancelled by user';
export const MAX_RETRIES_EXCEEDED = 'Max retries exceeded';
/** Spec 05's user action for "API key invalid". */
export const UPDATE_KEY_THEN_RETRY = 'update your key, then retry';

/**
 * The reason behind a run whose legs all failed, reusing the legs' reasons: `auth` when any provider
 * rejected its key (the one failure the user must fix before a retry can help), else the reason every
 * failed leg shares, else none.
 */
export function allFailedReason(legs: readonly { readonly status: LegStatus; readonly errorReason: LegFailureReason | null }[]): LegFailureReason | null {
  const reasons = new Set(legs.filter((l) => l.status === 'failed').map((l) => l.errorReason));
  if (reasons.has('auth')) return 'auth';
  const [only] = reasons;
  return reasons.size === 1 && only !== undefined ? only : null;
}

/** "All LLM calls failed", and when keys were rejected, whose and what to do. */
export function allFailedError(legs: readonly { readonly provider: ResearchProvider; readonly status: LegStatus; readonly errorReason: LegFailureReason | null }[]): string {
  const rejected = legs.filter((l) => l.status === 'failed' && l.errorReason === 'auth').map((l) => l.provider);
  return rejected.length === 0 ? ALL_LLMS_FAILED : `${ALL_LLMS_FAILED}: ${rejected.join(', ')} rejected the API key — ${UPDATE_KEY_THEN_RETRY}`;
}

/**
 * Spec 05 Phase 4, the synthesis skip rule (`successfulResults.length <= 1 && externalReportsCount === 0`):
 *
 * | Successful LLMs | External Reports | Action                              |
 * |-----------------|------------------|-------------------------------------|
 * | 0               | 0                | Error: "No successful LLM results"  |
 * | 0               | > 0              | Run synthesis (external only)       |
 * | 1               | 0                | Skip synthesis, mark completed      |
 * | 1               | > 0              | Run synthesis                       |
 * | > 1             | any              | Run synthesis                       |
 */
export type SynthesisPlan =
  | { readonly kind: 'error'; readonly reason: typeof NO_SUCCESSFUL_RESULTS }
  | { readonly kind: 'skip' }
  | { readonly kind: 'synthesize'; readonly externalOnly: boolean };

export function planSynthesis(successfulResults: number, externalReportsCount: number): SynthesisPlan {
  if (successfulResults === 0 && externalReportsCount === 0) return { kind: 'error', reason: NO_SUCCESSFUL_RESULTS };
  if (successfulResults <= 1 && externalReportsCount === 0) return { kind: 'skip' };
  return { kind: 'synthesize', externalOnly: successfulResults === 0 };
}
