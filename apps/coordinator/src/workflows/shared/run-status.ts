import type { RUN_STATUSES } from '@openpaw/contracts';
import { type RunSnapshot } from '@openpaw/saga';

/** WorkflowResult.status (spec 01 Output): the terminal states map one to one, everything else runs. */
export type RunStatus = (typeof RUN_STATUSES)[number];

export function statusOf(state: string): RunStatus {
  switch (state) {
    case 'SUCCEEDED':
      return 'succeeded';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    default:
      return 'running';
  }
}

/**
 * Milliseconds from the start of this attempt to the run's latest change (its end, once terminal:
 * inputs that change nothing leave `updatedAt` alone).
 */
export function durationMs(run: Pick<RunSnapshot, 'createdAt' | 'updatedAt'>, startedAt: string | null): number {
  const start = startedAt === null ? run.createdAt.getTime() : Date.parse(startedAt);
  return Math.max(0, run.updatedAt.getTime() - start);
}

/** USD amounts summed from floats, rounded to a millionth of a dollar for display. */
export function roundUsd(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}
